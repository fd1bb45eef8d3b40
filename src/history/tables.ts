// The table of the history area: one row per recorded event, before/after/data as JSON text.

export interface HistoryEventTable {
  id: string;
  /** ISO 8601 UTC with milliseconds, so it compares as text on both engines. */
  at: string;
  actor: string;
  action: string;
  object: string;
  summary: string;
  before: string | null;
  after: string | null;
  data: string | null;
}
