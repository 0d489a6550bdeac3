#ifndef CTK_OPENSSL_SHIM_H
#define CTK_OPENSSL_SHIM_H
/* Only OpenSSL 3 APIs: with these two defines the deprecated RSA_*, EC_KEY_*, HMAC_CTX_*
   functions are not even importable. */
#define OPENSSL_API_COMPAT 30000
#define OPENSSL_NO_DEPRECATED 1
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/err.h>
#include <openssl/crypto.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/core_names.h>
#include <openssl/param_build.h>
#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/rsa.h>
#include <openssl/bio.h>
#include <openssl/kdf.h>
#include <stdint.h>

/* EVP_PKEY_Q_keygen is variadic in C. */
static inline EVP_PKEY *ctk_keygen_rsa(unsigned int bits) {
    return EVP_PKEY_Q_keygen(NULL, NULL, "RSA", (size_t)bits);
}
static inline EVP_PKEY *ctk_keygen_ec(const char *group) {
    return EVP_PKEY_Q_keygen(NULL, NULL, "EC", group);
}
static inline EVP_PKEY *ctk_keygen_ed25519(void) {
    return EVP_PKEY_Q_keygen(NULL, NULL, "ED25519");
}
/* OPENSSL_free and BIO_get_mem_data are macros in C. */
static inline void ctk_openssl_free(void *p) { OPENSSL_free(p); }
static inline long ctk_bio_mem_data(BIO *bio, char **out) { return BIO_get_mem_data(bio, out); }
/* Selection macros are compound expressions in C. */
static inline int ctk_selection_public_key(void) { return EVP_PKEY_PUBLIC_KEY; }
static inline int ctk_selection_keypair(void) { return EVP_PKEY_KEYPAIR; }
/* scrypt (RFC 7914) through EVP_KDF. In C because OSSL_PARAM keeps pointers to its key names:
   here they are static string literals, where Swift would pass temporaries. 1 on success. */
static inline int ctk_scrypt(const unsigned char *pass, size_t pass_len, const unsigned char *salt, size_t salt_len,
                             uint64_t n, uint32_t r, uint32_t p, uint64_t maxmem, unsigned char *out, size_t out_len) {
    EVP_KDF *kdf = EVP_KDF_fetch(NULL, "SCRYPT", NULL);
    if (kdf == NULL) return 0;
    EVP_KDF_CTX *ctx = EVP_KDF_CTX_new(kdf);
    EVP_KDF_free(kdf);
    if (ctx == NULL) return 0;
    OSSL_PARAM params[] = {
        OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_PASSWORD, (void *)pass, pass_len),
        OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_SALT, (void *)salt, salt_len),
        OSSL_PARAM_construct_uint64(OSSL_KDF_PARAM_SCRYPT_N, &n),
        OSSL_PARAM_construct_uint32(OSSL_KDF_PARAM_SCRYPT_R, &r),
        OSSL_PARAM_construct_uint32(OSSL_KDF_PARAM_SCRYPT_P, &p),
        OSSL_PARAM_construct_uint64(OSSL_KDF_PARAM_SCRYPT_MAXMEM, &maxmem),
        OSSL_PARAM_construct_end(),
    };
    int ok = EVP_KDF_derive(ctx, out, out_len, params);
    EVP_KDF_CTX_free(ctx);
    return ok;
}
/* Creates OpenSSL's per-thread state keys in the order its thread-exit clean-up needs
   (thread_keys.c, which also calls it at load). Idempotent. */
void ctk_openssl_prepare_thread_state(void);
/* ERR_get_error_all is fine; ERR_reason_error_string too. Nothing else needed here. */
#endif
