/** The scopes an API client may hold; each opens one half of the Rules & Rewrites API. */
export const SCOPES = ['commercestudio.rules', 'commercestudio.rewrites'] as const;
export type Scope = (typeof SCOPES)[number];
