/**
 * The part of `oidc-provider` (panva, 9.x; it ships no types) that the test
 * authorization server in `oidc-provider.ts` uses. Configuration stays loosely
 * typed: the provider validates it at construction.
 */
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  export interface Interaction {
    uid: string;
    prompt: { name: string; reasons: string[]; details: Record<string, any> };
    params: Record<string, any>;
    session?: { accountId?: string };
    grantId?: string;
  }

  export interface Grant {
    addOIDCScope(scope: string): void;
    addOIDCClaims(claims: string[]): void;
    addResourceScope(resource: string, scope: string): void;
    rejectResourceScope(resource: string, scope: string): void;
    save(): Promise<string>;
  }

  export class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    readonly issuer: string;
    proxy: boolean;
    readonly Grant: {
      new (properties: { accountId: string; clientId: string }): Grant;
      find(id: string): Promise<Grant | undefined>;
    };
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<Interaction>;
    interactionFinished(
      req: IncomingMessage,
      res: ServerResponse,
      result: Record<string, unknown>,
      options?: { mergeWithLastSubmission?: boolean },
    ): Promise<void>;
    on(event: string, listener: (...args: any[]) => void): this;
  }

  export const errors: { InvalidTarget: new (description?: string) => Error };

  export default Provider;
}

/** The provider's own in-memory adapter, passed explicitly so the provider does not warn that it is the default. */
declare module 'oidc-provider/lib/adapters/memory_adapter.js' {
  export function createMemoryAdapter(clockTolerance?: number): unknown;
}
