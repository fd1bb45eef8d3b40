// OAuth2 access tokens of the Rules API: JWTs signed with a key derived from the
// service's secret key, revoked by deleting their client or its studio. `verify` asks the
// database (one lookup by primary key), so a delete on any node stops them at once;
// `signedToken` checks only the token itself, for a caller that holds its own copy of the
// clients (evaluation, see docs/decisions.md).
import { randomUUID, webcrypto } from 'node:crypto';
import { decodeJwt, SignJWT } from 'jose';
import type { Kysely } from 'kysely';
import { subkey } from '../security/subkey.js';
import type { Database } from '../storage/schema.js';
import { type ApiClient, authenticateClient, clientIdentity, studioCreatedAt } from '../studios/service.js';
import { ExternalIssuer, type ExternalIssuerSettings, ExternalTokenError } from './external-issuer.js';
import { checkValidity, Hs256Error, verifyHs256 } from './hs256.js';
import { SCOPES, type Scope } from './scopes.js';

export const TOKEN_LIFETIME_SECONDS = 3600;
const ISSUER = 'searchdeck';
/** How many checked tokens `#verified` keeps before it starts afresh (a few MiB at most). */
const VERIFIED_TOKENS = 10_000;

/** The identity a valid token carries. */
export interface TokenClaims {
  studioId: string;
  clientId: string;
  clientName: string;
  scopes: Scope[];
}

/** What one of our own tokens says, its signature and times checked; nothing of revocation. */
export interface SignedToken {
  studioId: string;
  clientId: string;
  /** The incarnation of the studio it was issued in; undefined for a token from before incarnations. */
  incarnation: string | undefined;
  scopes: readonly string[];
}

interface VerifiedToken {
  claims: Record<string, unknown>;
  summary: SignedToken;
}

/** The kinds of failed token request, in OAuth2's vocabulary (RFC 6749 §5.2). */
export type OAuthErrorKind =
  | 'invalid_request'
  | 'invalid_client'
  | 'unsupported_grant_type'
  | 'invalid_scope';

/** Why a token request fails; the token endpoint answers it with its status. */
export class OAuthError extends Error {
  constructor(
    readonly error: OAuthErrorKind,
    readonly description: string,
  ) {
    super(description);
  }
}

export class InvalidTokenError extends Error {}

/** Issues and checks tokens; one per app (built with it), holding the signing key. */
export class TokenService {
  // Imported once as a Web Crypto key: given raw bytes, jose imports them again on every
  // sign and verify, which cost a bearer request more than checking the signature itself.
  private readonly key: Promise<webcrypto.CryptoKey>;
  /** The same key as bytes, for checking tokens (`verifyHs256`). */
  private readonly keyBytes: Buffer;
  private readonly external: ExternalIssuer | undefined;
  /**
   * Claims of tokens whose signature has been checked, by the token as sent: a client sends
   * the same token for its whole life, so its HMAC and JSON are worked out once. Only signed
   * tokens enter (so only holders of a client's secret can fill it), and the times are checked
   * on every use. Revocation is not remembered: `verify` reads the client on every request
   * (`issuedTo`), and a caller of `signedToken` checks it against its own copy.
   */
  readonly #verified = new Map<string, VerifiedToken>();

  constructor(
    secretKey: Buffer,
    private readonly now: () => Date,
    external?: ExternalIssuerSettings,
  ) {
    this.keyBytes = subkey(secretKey, 'searchdeck tokens v1');
    this.key = webcrypto.subtle.importKey(
      'raw',
      new Uint8Array(this.keyBytes),
      { name: 'HMAC', hash: 'SHA-256' },
      false,
      ['sign', 'verify'],
    );
    this.external = external && new ExternalIssuer(external);
  }

  /** The client-credentials grant: a token for the client, with the requested (or all its) scopes. */
  async issue(
    db: Kysely<Database>,
    credentials: { clientId: string; clientSecret: string },
    grantType: string | undefined,
    scope: string | undefined,
  ) {
    if (grantType === undefined) throw new OAuthError('invalid_request', 'grant_type is required');
    if (grantType !== 'client_credentials') {
      throw new OAuthError('unsupported_grant_type', 'only grant_type=client_credentials is supported');
    }
    const identity = await authenticateClient(db, credentials.clientId, credentials.clientSecret);
    if (!identity) throw new OAuthError('invalid_client', 'unknown client or wrong secret');
    const { client, studioIncarnation } = identity;
    const scopes = grantedScopes(client, scope);
    const issuedAt = Math.floor(this.now().getTime() / 1000);
    const accessToken = await new SignJWT({
      studio_id: client.studioId,
      scope: scopes.join(' '),
      // The studio as it was created this time: one created again under its id has another.
      ...(studioIncarnation === null ? {} : { studio_incarnation: studioIncarnation }),
    })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuer(ISSUER)
      .setSubject(client.clientId)
      .setIssuedAt(issuedAt)
      .setExpirationTime(issuedAt + TOKEN_LIFETIME_SECONDS)
      .setJti(randomUUID())
      .sign(await this.key);
    return {
      token_type: 'Bearer',
      expires_in: TOKEN_LIFETIME_SECONDS,
      access_token: accessToken,
      scope: scopes.join(' '),
    };
  }

  /** The claims of a valid, unexpired token whose client and studio still exist; else InvalidTokenError. */
  async verify(db: Kysely<Database>, token: string): Promise<TokenClaims> {
    if (this.external && issuerOf(token) === this.external.settings.issuer) {
      return this.verifyExternal(db, token);
    }
    let payload: Record<string, unknown>;
    try {
      payload = this.#checked(token).claims;
    } catch (error) {
      if (error instanceof Hs256Error) throw new InvalidTokenError(error.message);
      throw error;
    }
    const client = await this.issuedTo(db, payload);
    if (!client) throw new InvalidTokenError('the token was revoked');
    const scopes = String(payload.scope ?? '').split(' ') as Scope[];
    return { studioId: client.studioId, clientId: client.clientId, clientName: client.name, scopes };
  }

  /**
   * One of our own tokens, when its signature and times check; else undefined (a token of the
   * external issuer, a forged, expired or malformed one). Whether its client and studio still
   * exist is the caller's to check.
   */
  signedToken(token: string): SignedToken | undefined {
    try {
      return this.#checked(token).summary;
    } catch (error) {
      if (error instanceof Hs256Error) return undefined;
      throw error;
    }
  }

  #checked(token: string): VerifiedToken {
    const now = this.now();
    const known = this.#verified.get(token);
    if (known !== undefined) {
      checkValidity(known.claims, now);
      return known;
    }
    const claims = Object.freeze(verifyHs256(token, this.keyBytes, ISSUER, now));
    const incarnation = claims.studio_incarnation;
    const verified: VerifiedToken = {
      claims,
      summary: Object.freeze({
        studioId: String(claims.studio_id),
        clientId: String(claims.sub),
        incarnation: incarnation === undefined ? undefined : String(incarnation),
        scopes: Object.freeze(String(claims.scope ?? '').split(' ')),
      }),
    };
    if (this.#verified.size >= VERIFIED_TOKENS) this.#verified.clear();
    this.#verified.set(token, verified);
    return verified;
  }

  private async verifyExternal(db: Kysely<Database>, token: string): Promise<TokenClaims> {
    let claims: Awaited<ReturnType<ExternalIssuer['verify']>>;
    try {
      claims = await this.external!.verify(token, this.now());
    } catch (error) {
      throw new InvalidTokenError(
        error instanceof ExternalTokenError ? error.message : 'the token is invalid',
      );
    }
    const createdAt = await studioCreatedAt(db, claims.studioId);
    if (!createdAt) {
      throw new InvalidTokenError(`the token names studio ${claims.studioId}, which does not exist`);
    }
    // The issuer knows studios by id only: a token from before the studio's creation may have
    // been meant for a deleted studio of that id. Without iat that cannot be told, so it fails too.
    if (claims.issuedAt === undefined || claims.issuedAt < Math.floor(createdAt.getTime() / 1000)) {
      throw new InvalidTokenError(`the token was issued before studio ${claims.studioId} was created`);
    }
    return {
      studioId: claims.studioId,
      clientName: claims.clientName,
      scopes: claims.scopes,
      clientId: `external:${claims.clientName}`,
    };
  }

  /**
   * The client a token of ours was issued to, while it and the very studio it was issued in
   * exist. Client ids are random and never reused, and a studio created again under an old id
   * has a new incarnation, so nothing created after a delete accepts a token from before it.
   */
  private async issuedTo(
    db: Kysely<Database>,
    payload: Record<string, unknown>,
  ): Promise<ApiClient | undefined> {
    const identity = await clientIdentity(db, String(payload.sub));
    if (!identity || identity.client.studioId !== payload.studio_id) return undefined;
    // Tokens issued before studios had incarnations carry none; their client's id still binds them.
    if (
      payload.studio_incarnation !== undefined &&
      payload.studio_incarnation !== identity.studioIncarnation
    ) {
      return undefined;
    }
    return identity.client;
  }
}

function grantedScopes(client: ApiClient, requested: string | undefined): Scope[] {
  if (requested === undefined || requested.trim() === '') return client.scopes;
  const scopes = [...new Set(requested.trim().split(/\s+/))];
  for (const scope of scopes) {
    if (!(SCOPES as readonly string[]).includes(scope)) {
      throw new OAuthError('invalid_scope', `unknown scope ${scope}`);
    }
    if (!client.scopes.includes(scope as Scope)) {
      throw new OAuthError('invalid_scope', `the client is not allowed scope ${scope}`);
    }
  }
  return scopes as Scope[];
}

/** The unverified `iss` of a token, to pick the key that must verify it. */
function issuerOf(token: string): string | undefined {
  try {
    return decodeJwt(token).iss;
  } catch {
    return undefined;
  }
}
