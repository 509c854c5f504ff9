/** The few parts of oidc-provider (which ships no types) the tests use. */
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  export interface OidcAccount {
    accountId: string;
    claims(): Promise<Record<string, unknown>> | Record<string, unknown>;
  }

  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    Grant: new (input: {
      accountId: string;
      clientId: string;
    }) => {
      addOIDCScope(scope: string): void;
      save(): Promise<string>;
    };
    on(event: string, listener: (...args: unknown[]) => void): void;
  }
}
