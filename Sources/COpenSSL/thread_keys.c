#include "shim.h"

/* OpenSSL 3 keeps a thread's error queue and its random generators under pthread keys of their
   own, and frees them when the thread exits, from the destructor of a third key that reads them
   from theirs. Two ways lost that state (about 3.3 KB per thread; LeakSanitizer saw both):

   - Key order. glibc clears an exiting thread's keys in index order, each before its destructor
     runs: a state key with a lower index than the destructor's key is already empty when the
     destructor looks. OpenSSL makes the destructor's key at its first call and the others lazily,
     at the first error and the first random bytes; a lower index freed in between (swift-nio
     deletes a key whenever a thread-specific variable ends) goes to a state key. Making all three
     here, at load and before any other thread exists, gives them ascending indices in that order.
   - Exit. OpenSSL's atexit clean-up deletes those keys and frees its global state while the
     process's other threads (event loops, the concurrency pool) still run: a thread that exits
     after it loses its state, and one still using OpenSSL would use freed memory. A server exits
     with threads running, so OpenSSL is told not to register it (OPENSSL_INIT_NO_ATEXIT): the
     process's memory goes back to the system at exit anyway.

   This must be OpenSSL's first call in the process for either to hold: hence a constructor. */
void ctk_openssl_prepare_thread_state(void) {
    OPENSSL_init_crypto(OPENSSL_INIT_NO_ATEXIT, NULL); /* the destructor's key; no atexit clean-up */
    ERR_clear_error();                                 /* the error queue's key */
    /* The random generators' keys, made with the global that holds them. Setting the default
       type (all NULL) instantiates nothing: RAND_get0_primary here cost 7M instructions at every
       start of every process. No configuration is loaded yet, so openssl.cnf still decides. */
    (void)RAND_set_DRBG_type(NULL, NULL, NULL, NULL, NULL);
}

__attribute__((constructor)) static void ctk_openssl_prepare_at_load(void) { ctk_openssl_prepare_thread_state(); }
