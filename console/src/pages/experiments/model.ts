// The Experiments API's answers as the page reads them, and what it says of an experiment's
// state: running, stopped, not started, ended, or promoted.
import type { components, paths } from '../../api/schema';

export type Experiment = components['schemas']['Experiment'];
export type Profile = components['schemas']['QueryProfile'];
export type Metrics =
  paths['/api/apps/{app}/experiments/{id}/metrics']['get']['responses'][200]['content']['application/json'];
export type VariantMetrics = Metrics['variants'][number];

/** The settings of an experiment as read, as a PUT takes them (what the service keeps itself left out). */
export function settingsOf(experiment: Experiment) {
  const { id: _id, createdAt: _c, updatedAt: _u, running: _r, promoted: _p, ...settings } = experiment;
  return settings;
}

const when = (iso: string) =>
  new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** The state in a word or two for the listing, and in a sentence for the experiment's page. */
export function stateOf(experiment: Experiment, now = Date.now()): { short: string; sentence: string } {
  const { promoted, startTimestamp: start, endTimestamp: end } = experiment;
  if (promoted) {
    const variant = experiment.variants.find((v) => v.id === promoted.variant);
    const name = variant?.name || promoted.variant;
    return {
      short: `Ended: ${name} promoted`,
      sentence: `Ended on ${when(promoted.at)}: ${name} became the settings of the profile ${promoted.profile}.`,
    };
  }
  if (end && Date.parse(end) <= now)
    return {
      short: 'Ended',
      sentence: `Ended on ${when(end)}: every shopper gets the profile's own settings.`,
    };
  if (experiment.running)
    return {
      short: 'Running',
      sentence: `Running${start ? ` since ${when(start)}` : ''}${end ? `, until ${when(end)}` : ''}: each shopper gets one variant.`,
    };
  if (experiment.enabled && start && Date.parse(start) > now)
    return { short: 'Starts later', sentence: `Starts on ${when(start)}.` };
  if (start)
    return {
      short: 'Stopped',
      sentence: 'Stopped: every shopper gets the profile’s own settings. Its results so far are kept.',
    };
  return { short: 'Not started', sentence: 'Not started yet: shoppers get the profile’s own settings.' };
}
