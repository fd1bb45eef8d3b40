// The fields of each type of rule and rewrite as form inputs (not raw JSON): what each type
// has, how its values read as text in the inputs, and back into the API's shape.
import type { ErrorBody } from '../../api/client';
import { plainMessageFor } from '../../words';

type Input = 'text' | 'lines' | 'number' | 'optional-number' | 'optional-text' | 'pins';

interface FieldSpec {
  name: string;
  label: string;
  input: Input;
  /** The value a new rule starts with. */
  initial?: string;
}

const FIELD_NAME: FieldSpec = { name: 'fieldName', label: 'Field name', input: 'text', initial: 'id' };
const VALUES: FieldSpec = { name: 'fieldValues', label: 'Values (one a line)', input: 'lines' };
const BOOST: FieldSpec = { name: 'boost', label: 'Boost', input: 'number', initial: '10' };

/** The fields of each type, in the order the editor shows them. */
export const KIND_FIELDS: Record<string, FieldSpec[]> = {
  blockList: [FIELD_NAME, VALUES],
  boostList: [FIELD_NAME, VALUES, BOOST],
  buryList: [FIELD_NAME, VALUES, BOOST],
  pinned: [
    FIELD_NAME,
    { name: 'pinnedValues', label: 'Pinned values (value=position, one a line)', input: 'pins' },
  ],
  redirect: [{ name: 'url', label: 'Redirect URL', input: 'text', initial: 'https://' }],
  banner: [
    { name: 'bannerUrl', label: 'Banner URL', input: 'text', initial: 'https://' },
    { name: 'zone', label: 'Zone', input: 'text', initial: 'top' },
  ],
  synonym: [
    { name: 'input', label: 'Input (empty: every term stands for the others)', input: 'optional-text' },
    { name: 'synonyms', label: 'Synonyms (one a line)', input: 'lines' },
  ],
  misspelling: [
    { name: 'misspelling', label: 'Misspelling', input: 'text' },
    { name: 'correction', label: 'Correction', input: 'text' },
  ],
  phrase: [
    { name: 'phrase', label: 'Phrase', input: 'text' },
    { name: 'boost', label: 'Boost (optional)', input: 'optional-number' },
  ],
  headTail: [
    { name: 'query', label: 'Query', input: 'text' },
    { name: 'head', label: 'Head', input: 'text' },
  ],
  removeWords: [{ name: 'words', label: 'Words to remove (one a line)', input: 'lines' }],
};

export type FieldTexts = Record<string, string>;

const linesOf = (text: string) =>
  text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);

/** The inputs' texts of a type: from a stored rule's fields, or the type's starting values. */
export function textsOf(type: string, fields?: Record<string, unknown>): FieldTexts {
  return Object.fromEntries(
    (KIND_FIELDS[type] ?? []).map((spec) => {
      if (fields === undefined) return [spec.name, spec.initial ?? ''];
      const value = fields[spec.name];
      if (value === undefined || value === null) return [spec.name, ''];
      if (spec.input === 'pins')
        return [
          spec.name,
          (value as { value: string; position: number }[]).map((p) => `${p.value}=${p.position}`).join('\n'),
        ];
      if (Array.isArray(value)) return [spec.name, value.join('\n')];
      return [spec.name, String(value)];
    }),
  );
}

/** The type's fields in the API's shape; a number that is not one is sent as text, for the API to name. */
export function valuesOf(type: string, texts: FieldTexts): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const spec of KIND_FIELDS[type] ?? []) {
    const text = (texts[spec.name] ?? '').trim();
    const number = text === '' || Number.isNaN(Number(text)) ? text : Number(text);
    switch (spec.input) {
      case 'lines':
        values[spec.name] = linesOf(text);
        break;
      case 'pins':
        values[spec.name] = linesOf(text).map((line) => {
          const equals = line.lastIndexOf('=');
          const position = equals < 0 ? '' : line.slice(equals + 1).trim();
          return {
            value: equals < 0 ? line : line.slice(0, equals).trim(),
            position: position === '' || Number.isNaN(Number(position)) ? position : Number(position),
          };
        });
        break;
      case 'number':
      case 'optional-number':
        if (text !== '') values[spec.name] = number;
        break;
      case 'optional-text':
        values[spec.name] = text === '' ? null : text;
        break;
      default:
        values[spec.name] = text;
    }
  }
  return values;
}

/** The type's own fields, each with the API's message beside it. */
export function KindFields({
  type,
  texts,
  onChange,
  error,
}: {
  type: string;
  texts: FieldTexts;
  onChange: (texts: FieldTexts) => void;
  error: ErrorBody | undefined;
}) {
  return (
    <>
      {(KIND_FIELDS[type] ?? []).map((spec) => {
        const id = `kind-${spec.name}`;
        const message = plainMessageFor(error, spec.name, spec.label);
        const common = {
          id,
          value: texts[spec.name] ?? '',
          'aria-invalid': message !== undefined,
          'aria-describedby': `${spec.name}-error`,
          spellCheck: false,
        };
        const change = (value: string) => onChange({ ...texts, [spec.name]: value });
        return (
          <div className="field" key={`${type}-${spec.name}`}>
            <label htmlFor={id}>{spec.label}</label>
            {spec.input === 'lines' || spec.input === 'pins' ? (
              <textarea rows={4} {...common} onChange={(e) => change(e.target.value)} />
            ) : (
              <input
                inputMode={spec.input.endsWith('number') ? 'decimal' : undefined}
                {...common}
                onChange={(e) => change(e.target.value)}
              />
            )}
            {message && (
              <span className="field-error" id={`${spec.name}-error`}>
                {message}
              </span>
            )}
          </div>
        );
      })}
    </>
  );
}

/** The names of the type's own fields, to tell their messages from the others. */
export function kindFieldNames(type: string): string[] {
  return (KIND_FIELDS[type] ?? []).map((spec) => spec.name);
}
