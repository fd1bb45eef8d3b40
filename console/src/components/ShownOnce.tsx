// A secret the service shows only in the answer that made it (an API client's secret, a
// typeahead embed token): shown with a Copy button and a warning that it will not be shown again.
import { Button, CopyButton } from '@mantine/core';

export function ShownOnce({
  title,
  values,
  advice,
  onDone,
}: {
  /** Where it goes, in a sentence. */
  advice: string;
  /** What was made: `API client "feed importer" created.` */
  title: string;
  /** Each value with its label (`Client secret`); the label names the output too. */
  values: { label: string; value: string }[];
  /** Hides the box ("I have copied it"). */
  onDone: () => void;
}) {
  return (
    <section className="secret" aria-label={title}>
      <p>
        <strong>{title}</strong> Copy it now: it is not shown again. {advice}
      </p>
      {values.map(({ label, value }) => (
        <div className="secret-value" key={label}>
          <span>{label}:</span> <output aria-label={label}>{value}</output>
          <CopyButton value={value}>
            {({ copied, copy }) => (
              <Button
                size="compact-sm"
                variant="outline"
                onClick={copy}
                aria-label={`Copy the ${label.split(' ').at(-1)?.toLowerCase()}`}
              >
                {copied ? 'Copied' : 'Copy'}
              </Button>
            )}
          </CopyButton>
        </div>
      ))}
      <Button size="compact-sm" variant="subtle" mt="xs" onClick={onDone}>
        I have copied it
      </Button>
    </section>
  );
}
