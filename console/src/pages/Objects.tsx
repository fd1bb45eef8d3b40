// Objects and links: pick an object and see its neighbourhood (both directions, link types
// labelled) drawn by Cytoscape; add and remove links. Loaded on demand: the graph library is
// most of this page's weight.
import cytoscape from 'cytoscape';
import { type FormEvent, useCallback, useEffect, useRef, useState } from 'react';
import { api, dataOrThrow, type ErrorBody, errorOf, mayEdit, type Session } from '../api/client';
import type { components } from '../api/schema';
import { useConfirm } from '../components/Confirm';
import { Loading } from '../components/Loading';
import { TableScroll } from '../components/TableScroll';
import { offerUndo } from '../components/undo';
import { setQuery, useLocation } from '../router';
import { messagesInWords } from '../words';

type Link = components['schemas']['Link'];
const LINK_TYPES: Link['linkType'][] = [
  'dependsOn',
  'supports',
  'isPartOf',
  'hasPart',
  'inContextOf',
  'hasContext',
  'relatesTo',
];

export default function ObjectsPage({ session }: { session: Session }) {
  const { query } = useLocation();
  const subject = query.get('object') ?? '';
  // The links of `subject`; undefined while they are asked for.
  const [links, setLinks] = useState<Link[]>();
  const [error, setError] = useState<ErrorBody>();
  const editable = mayEdit(session, 'platform');
  const confirm = useConfirm();

  const load = useCallback(async () => {
    if (subject === '') return setLinks([]);
    setLinks(undefined);
    const [out, into] = await Promise.all([
      api.GET('/api/links', { params: { query: { subject, limit: 500 } } }),
      api.GET('/api/links', { params: { query: { object: subject, limit: 500 } } }),
    ]);
    if (!out.data || !into.data) {
      setLinks([]);
      return setError(errorOf(out.error ?? into.error));
    }
    setError(undefined);
    const seen = new Set<string>();
    setLinks(
      [...out.data, ...into.data].filter((l) => {
        const key = `${l.subject} ${l.linkType} ${l.object}`;
        if (seen.has(key)) return false;
        seen.add(key);
        return true;
      }),
    );
  }, [subject]);
  useEffect(() => {
    load();
  }, [load]);

  async function add(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const { error } = await api.PUT('/api/links', {
      body: {
        subject: String(form.get('subject')),
        linkType: String(form.get('linkType')) as Link['linkType'],
        object: String(form.get('object')),
      },
    });
    if (error) setError(errorOf(error));
    else await load();
  }

  async function remove(link: Link) {
    const said = `${link.subject} ${link.linkType} ${link.object}`;
    const confirmed = await confirm({
      title: `Remove the link "${said}"?`,
      message: 'The link graph no longer has it. Undo, offered for a few seconds, adds it again.',
      confirm: 'Remove link',
    });
    if (!confirmed) return;
    const body = { subject: link.subject, linkType: link.linkType, object: link.object };
    const { error } = await api.DELETE('/api/links', { body } as never);
    if (error) return setError(errorOf(error));
    await load();
    offerUndo({
      done: `Removed the link "${said}".`,
      undone: `The link "${said}" is back.`,
      undo: async () => {
        try {
          await dataOrThrow(api.PUT('/api/links', { body }));
        } finally {
          await load();
        }
      },
    });
  }

  return (
    <>
      <h1>Objects</h1>
      <form
        className="filters"
        aria-label="Pick an object"
        onSubmit={(e) => {
          e.preventDefault();
          setQuery({ object: String(new FormData(e.currentTarget).get('object')) });
        }}
      >
        <label>
          Object
          <input name="object" defaultValue={subject} placeholder="app:shop" key={subject} />
        </label>
        <button type="submit" className="primary">
          Show
        </button>
      </form>
      {error && (
        <p className="error" role="alert">
          {messagesInWords(error, { subject: 'Subject', linkType: 'Link type', object: 'Object' })}
        </p>
      )}
      {subject && links === undefined && <Loading what={`the links of ${subject}`} />}
      {subject && links && <Graph center={subject} links={links} onPick={(id) => setQuery({ object: id })} />}
      {subject && links && (
        <TableScroll label={`Links of ${subject}`}>
          <table>
            <caption>Links of {subject}</caption>
            <thead>
              <tr>
                <th scope="col">Subject</th>
                <th scope="col">Link type</th>
                <th scope="col">Object</th>
                {editable && <th scope="col">Actions</th>}
              </tr>
            </thead>
            <tbody>
              {links.map((l) => (
                <tr key={`${l.subject} ${l.linkType} ${l.object}`}>
                  <td>{l.subject}</td>
                  <td>{l.linkType}</td>
                  <td>{l.object}</td>
                  {editable && (
                    <td>
                      <button
                        type="button"
                        aria-label={`Remove ${l.subject} ${l.linkType} ${l.object}`}
                        onClick={() => remove(l)}
                      >
                        Remove
                      </button>
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
      {editable && (
        <form className="filters card" onSubmit={add} aria-label="Add a link">
          <label>
            Subject
            <input name="subject" defaultValue={subject} key={`s-${subject}`} required />
          </label>
          <label>
            Link type
            <select name="linkType">
              {LINK_TYPES.map((t) => (
                <option key={t}>{t}</option>
              ))}
            </select>
          </label>
          <label>
            Object of the link
            <input name="object" required />
          </label>
          <button type="submit">Add link</button>
        </form>
      )}
    </>
  );
}

function Graph({ center, links, onPick }: { center: string; links: Link[]; onPick: (id: string) => void }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!box.current) return;
    const nodes = new Set([center, ...links.flatMap((l) => [l.subject, l.object])]);
    const cy = cytoscape({
      container: box.current,
      elements: [
        ...[...nodes].map((id) => ({ data: { id, label: id } })),
        ...links.map((l) => ({
          data: {
            id: `${l.subject} ${l.linkType} ${l.object}`,
            source: l.subject,
            target: l.object,
            label: l.linkType,
          },
        })),
      ],
      style: [
        {
          selector: 'node',
          style: {
            label: 'data(label)',
            'background-color': '#0b57d0',
            color: '#1b1f24',
            'font-size': 11,
            'text-valign': 'bottom',
          },
        },
        {
          selector: `node[id = ${JSON.stringify(center)}]`,
          style: { 'background-color': '#b3261e', width: 36, height: 36 },
        },
        {
          selector: 'edge',
          style: {
            label: 'data(label)',
            'curve-style': 'bezier',
            'target-arrow-shape': 'triangle',
            'font-size': 10,
            'text-rotation': 'autorotate',
            'line-color': '#9ca3af',
            'target-arrow-color': '#9ca3af',
          },
        },
      ],
      layout: {
        name: 'concentric',
        concentric: (n) => (n.id() === center ? 2 : 1),
        levelWidth: () => 1,
        minNodeSpacing: 60,
      },
    });
    cy.on('tap', 'node', (event) => onPick(event.target.id()));
    return () => cy.destroy();
  }, [center, links, onPick]);
  return (
    <div
      ref={box}
      className="graph"
      role="img"
      aria-label={`Graph of ${center}: ${links.map((l) => `${l.subject} ${l.linkType} ${l.object}`).join('; ') || 'no links'}`}
      data-edges={links.length}
    />
  );
}
