/**
 * What the rest of the service may use of the single sign-on module: its sealed columns, for
 * start-up's re-sealing (secret-sweep.ts).
 */
export { sealedSsoColumns } from './repository.ts';
