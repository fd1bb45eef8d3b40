// Tokens of an external OpenID Connect issuer, accepted beside our own: their signature is
// checked against the issuer's published keys (JWKS), the studio taken from a claim.
import { createRemoteJWKSet, errors as joseErrors, jwtVerify } from 'jose';
import type { Config } from '../config.js';
import type { Scope } from './scopes.js';

export interface ExternalIssuerSettings {
  issuer: string;
  jwksUrl: string;
  audience: string | undefined;
  studioClaim: string;
}

/** The claims an external token must carry to act in a studio. */
export interface ExternalClaims {
  studioId: string;
  clientName: string;
  scopes: Scope[];
  /** `iat`, in seconds since the epoch: a token issued before its studio was created is not for it. */
  issuedAt: number | undefined;
}

// Asymmetric algorithms only: an HMAC "signed" with a public key must never pass.
const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];

/** The configured external issuer, if any. */
export function externalIssuerSettings(config: Config): ExternalIssuerSettings | undefined {
  if (!config.oidcIssuer || !config.oidcJwksUrl) return undefined;
  return {
    issuer: config.oidcIssuer,
    jwksUrl: config.oidcJwksUrl,
    audience: config.oidcAudience,
    studioClaim: config.oidcStudioClaim,
  };
}

export class ExternalTokenError extends Error {}

export class ExternalIssuer {
  // jose caches the key set, refetching it when a token names an unknown key (rotation).
  private readonly keys;

  constructor(readonly settings: ExternalIssuerSettings) {
    this.keys = createRemoteJWKSet(new URL(settings.jwksUrl), {
      timeoutDuration: 5_000,
      cooldownDuration: 30_000,
    });
  }

  async verify(token: string, now: Date): Promise<ExternalClaims> {
    let payload: Record<string, unknown>;
    try {
      ({ payload } = await jwtVerify(token, this.keys, {
        issuer: this.settings.issuer,
        ...(this.settings.audience ? { audience: this.settings.audience } : {}),
        algorithms: ALGORITHMS,
        currentDate: now,
      }));
    } catch (error) {
      if (error instanceof joseErrors.JWTExpired) throw new ExternalTokenError('the token has expired');
      throw new ExternalTokenError('the token is invalid');
    }
    const studioId = payload[this.settings.studioClaim];
    if (typeof studioId !== 'string' || studioId === '') {
      throw new ExternalTokenError(`the token has no ${this.settings.studioClaim} claim naming a studio`);
    }
    const clientName = [payload.client_id, payload.azp, payload.sub].find((v) => typeof v === 'string');
    return {
      studioId,
      clientName: String(clientName ?? 'external'),
      scopes: scopesOf(payload),
      issuedAt: typeof payload.iat === 'number' ? payload.iat : undefined,
    };
  }
}

// OAuth2 puts scopes in a space-separated `scope`; some issuers use an `scp` array instead.
function scopesOf(payload: Record<string, unknown>): Scope[] {
  if (typeof payload.scope === 'string') return payload.scope.split(' ').filter(Boolean) as Scope[];
  if (Array.isArray(payload.scp)) return payload.scp.filter((s) => typeof s === 'string') as Scope[];
  return [];
}
