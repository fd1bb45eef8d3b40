/** A studio's live version: moves on with every change of its live rules or rewrites. */
export interface RuleLiveVersionTable {
  studio_id: string;
  version: number;
}
