/// What the migration runner needs from a store driver. Every call happens inside the one
/// migration transaction that ``begin()`` opens.
///
/// A driver implements these in its own SQL dialect; ``SchemaMigrator`` decides what to run.
public protocol MigrationDriver {
    /// Opens the migration transaction, takes whatever lock keeps other processes from
    /// migrating at the same time, and creates the `schema_migrations` table if it is missing.
    func begin() async throws
    /// The `(version, name)` rows of `schema_migrations`.
    func appliedSteps() async throws -> [(version: Int, name: String)]
    /// Runs one statement of a step.
    func execute(_ statement: String) async throws
    /// Records in `schema_migrations` that `step` was applied.
    func record(_ step: SchemaMigration) async throws
    func commit() async throws
    /// Rolls the transaction back; errors are ignored (the migration's own error is reported).
    func rollback() async
}

/// The one migration runner of every store: applies the pending steps of a driver's
/// ``SchemaMigration`` list in one transaction, or none of them.
public enum SchemaMigrator {
    /// Brings the store behind `driver` to `target` (default: the newest version).
    /// - Throws: `store_too_new`, `invalid_configuration` (see ``SessionSchema/pendingSteps(applied:available:upTo:)``),
    ///   and the driver's errors (`store_unavailable`); the store is then unchanged.
    public static func migrate(_ driver: some MigrationDriver, steps: [SchemaMigration], upTo target: Int? = nil) async throws {
        try await driver.begin()
        do {
            let applied = try await driver.appliedSteps()
            for step in try SessionSchema.pendingSteps(applied: applied, available: steps, upTo: target) {
                for statement in step.statements { try await driver.execute(statement) }
                try await driver.record(step)
            }
            try await driver.commit()
        } catch {
            await driver.rollback()
            throw error
        }
    }
}
