// `npm run generate:api-types`: writes console/src/api/schema.d.ts from the served OpenAPI document.
import { writeFileSync } from 'node:fs';
import { API_TYPES_FILE, apiTypesOf, servedDocument } from './openapi-tools.js';

writeFileSync(API_TYPES_FILE, await apiTypesOf(await servedDocument()));
console.log(`wrote ${API_TYPES_FILE}`);
