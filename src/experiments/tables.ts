/** One experiment; `settings` is its JSON without its id and times (see StoredExperiment). */
export interface ExperimentTable {
  app: string;
  id: string;
  settings: string;
  created_at: string;
  updated_at: string;
}
