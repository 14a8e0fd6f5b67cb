/**
 * Schema 1, superseded: migration 0007 drops what this created (on a database
 * that ran it) and builds schema 2. It stays listed, as a no-op, because
 * databases that ran it record its name.
 */
export async function up(): Promise<void> {}

export async function down(): Promise<void> {}
