// SessionStoreSQLite module
