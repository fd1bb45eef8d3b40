// `npm run lint:openapi`: Redocly's lint of the served OpenAPI document; exits 1 on any error.
import { redoclyLint, servedDocument } from './openapi-tools.js';

const problems = await redoclyLint(await servedDocument());
for (const problem of problems) {
  console.log(
    `${problem.severity} ${problem.ruleId}: ${problem.message} (${problem.location[0]?.pointer ?? ''})`,
  );
}
const errors = problems.filter((problem) => problem.severity === 'error').length;
console.log(`${errors} errors, ${problems.length - errors} warnings`);
process.exitCode = errors > 0 ? 1 : 0;
