// The token service of an app, shared by the token endpoint and the bearer
// authentication of the Rules API, created once per app context.
import type { AppContext } from '../http/area.js';
import { externalIssuerSettings } from './external-issuer.js';
import { TokenService } from './tokens.js';

export interface RulesRuntime {
  tokens: TokenService;
}

const runtimes = new WeakMap<AppContext, RulesRuntime>();

/** The runtime of an app (the same object for its admin and public routes). */
export function rulesRuntime(ctx: AppContext): RulesRuntime {
  let runtime = runtimes.get(ctx);
  if (!runtime) {
    const { db } = ctx.store;
    runtime = {
      tokens: new TokenService(db, ctx.secretKey, ctx.now, externalIssuerSettings(ctx.config)),
    };
    runtimes.set(ctx, runtime);
  }
  return runtime;
}
