// @ts-check
import { readFileSync } from 'node:fs';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// The floors (floors.json): each folder's files may import values from their own folder and lower
// floors only; type-only imports may go up where floors.json says so (a workflow names its
// activities' interface). test/house.test.ts checks the whole graph and finds circles.
const { floors, typeOnlyUp } = JSON.parse(readFileSync(`${import.meta.dirname}/floors.json`, 'utf8'));
const floorOf = new Map(floors.flatMap((rooms, i) => rooms.map((room) => [room, i])));
const top = floors.length - 1;
// What each folder may not import besides the floors: workflows run in Temporal's deterministic
// sandbox (no I/O, clocks or randomness of their own); a2a/ is a protocol library with no Temporal.
const ownRules = {
  workflows: [{ group: ['node:*', 'undici', 'pino', '**/a2a/client*'], message: 'workflow code is deterministic: no I/O' }],
  a2a: [{ group: ['@temporalio/*'], message: 'a2a/ is the protocol library: no Temporal' }],
};
// A relative import leaves its room by climbing to the top: a file `depth` folders down reaches
// another room as `../` repeated `depth` times, then the room's name.
const MAX_DEPTH = 5;
const floorRules = [...floorOf.entries()].flatMap(([room, floor]) => {
  const above = [...floorOf.entries()].filter(([other, f]) => other !== room && (f > floor || (f === floor && floor !== top)));
  const typeOnly = new Set(typeOnlyUp.filter(([from]) => from === room).map(([, to]) => to));
  return Array.from({ length: MAX_DEPTH }, (_, i) => i + 1).map((depth) => ({
    files: [`${room}/${'*/'.repeat(depth - 1)}*.ts`],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', {
        patterns: [
          ...(ownRules[room] ?? []),
          ...above.map(([other]) => ({
            regex: `^(\\.\\./){${depth}}${other}(/|$)`,
            message: `${room}/ is on floor ${floor} and ${other}/ on floor ${floorOf.get(other)} (floors.json): import downwards only`,
            ...(typeOnly.has(other) ? { allowTypeImports: true } : {}),
          })),
        ],
      }],
    },
  }));
});

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', '.planner/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', require: 'readonly', module: 'writable', __dirname: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
    },
  },
  {
    files: ['workflows/**/*.ts'],
    rules: { 'no-restricted-globals': ['error', 'setTimeout', 'setInterval', 'fetch'] },
  },
  ...floorRules,
);
