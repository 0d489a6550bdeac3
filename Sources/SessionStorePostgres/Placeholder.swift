// SessionStorePostgres module
