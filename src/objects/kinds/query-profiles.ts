// Query profiles: exported with their settings and links, never with their search-only keys.
// An imported profile has no key until one is created; the report says so. They are written
// after the clusters, studios and typeahead instances they depend on.
import { getProfile, profileExists, profileObject, writeProfile } from '../../query/profiles.js';
import { decide, each, type ItemOf, type ObjectKind, record } from '../kind.js';

type ProfileItem = ItemOf<'queryProfiles'>;

const name = (item: { app: string; id: string }) => profileObject(item.app, item.id);

/** `{app}/{id}`, as an export selects a profile and as its links name it. */
function split(appAndId: string): { app: string; id: string } | undefined {
  const slash = appAndId.indexOf('/');
  if (slash <= 0) return undefined;
  return { app: appAndId.slice(0, slash), id: appAndId.slice(slash + 1) };
}

export const queryProfileKind: ObjectKind<'queryProfiles'> = {
  key: 'queryProfiles',
  prefix: 'query-profile',
  nameOf: name,
  secretsOf: (item) => [`${name(item)}#keys`],
  exported(db, selection) {
    return each(
      Promise.all(
        selection.ids['query-profile'].map(async (appAndId): Promise<ProfileItem> => {
          // A link can name a profile in any spelling: one that is no `{app}/{id}` is none.
          const { app, id } = split(appAndId) ?? { app: '', id: appAndId };
          const { createdAt: _c, updatedAt: _u, id: _id, ...settings } = await getProfile(db, app, id);
          return { app, id, ...settings };
        }),
      ),
    );
  },
  async existing(db, items) {
    const names: string[] = [];
    for (const item of items) if (await profileExists(db, item.app, item.id)) names.push(name(item));
    return names;
  },
  async write(run, items) {
    for (const item of items) {
      const done = decide(run, name(item));
      if (done !== 'skip') {
        const { app, id, ...body } = item;
        await writeProfile(run.db, app, id, body, 'put', run.now, {
          actor: run.actor,
          clusterInAnyApp: true,
        });
      }
      if (done === 'create') {
        run.report.needsSecret.push({
          object: name(item),
          secret: 'keys',
          how: `POST /api/apps/${item.app}/query-profiles/${item.id}/keys`,
        });
      }
      record(run, name(item), done);
    }
  },
  async exists(db, appAndId) {
    const parts = split(appAndId);
    return parts !== undefined && (await profileExists(db, parts.app, parts.id));
  },
};
