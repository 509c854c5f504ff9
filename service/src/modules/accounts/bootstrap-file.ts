import fs from 'node:fs';
import path from 'node:path';

/** The install's first admin, created on the first start (src/bootstrap.ts). */
export const adminEmail = 'admin@localhost';

/** Where the first start writes the credentials it created, in DATA_DIR. */
export const bootstrapFileName = 'bootstrap.json';

/**
 * Deletes DATA_DIR/bootstrap.json: once the admin has signed in, the admin password and the
 * full-scope key must not lie around in a file (anything that can read the disk would own
 * the install). Called on every sign-in of the admin; a missing file is fine.
 */
export function removeBootstrapFile(dataDir: string): void {
  fs.rmSync(path.join(dataDir, bootstrapFileName), { force: true });
}
