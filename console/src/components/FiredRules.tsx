// The rules an evaluation fired, in precedence order: shown by "try a query" on the Rules
// page and by the query workbench.

import { typeLabel } from '../words';
import { TableScroll } from './TableScroll';

export interface FiredRule {
  id: string;
  name: string;
  type: string;
  precedence: number;
}

export function FiredRules({ rules }: { rules: readonly FiredRule[] }) {
  return (
    <>
      <TableScroll label="Rules that fired">
        <table>
          <caption>Rules that fired</caption>
          <thead>
            <tr>
              <th scope="col">Rule</th>
              <th scope="col">Type</th>
              <th scope="col">Precedence</th>
            </tr>
          </thead>
          <tbody>
            {rules.map((r) => (
              <tr key={r.id}>
                <td>{r.name}</td>
                <td>{typeLabel(r.type)}</td>
                <td>{r.precedence}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
      {rules.length === 0 && <p>No rule fired.</p>}
    </>
  );
}
