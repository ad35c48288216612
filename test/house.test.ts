// The house's rules over the whole import graph (test/support/house.ts): every value import runs
// down the floors of floors.json (eslint holds the same per file), and no files import each other,
// directly or round a loop. Pure: reads the source, starts nothing.
import { join } from 'node:path';
import { longFiles, longFunctions, measureHouse, readFloors } from './support/house';

const root = join(__dirname, '..');
const floors = readFloors(root);
const house = measureHouse(root, floors);

it('places every folder on a floor', () => {
  const placed = new Set(floors.floors.flat());
  expect(house.rooms.filter((room) => !placed.has(room))).toEqual([]);
});

it('has no import running up a floor, except the type-only ones floors.json allows', () => {
  expect(house.upward.map((a) => a.example)).toEqual([]);
  // The allowance is used, so the check above could have failed on it.
  expect(house.arrows.some((a) => a.from === 'workflows' && a.to === 'activities' && a.typeOnly)).toBe(true);
});

it('has no two files importing each other', () => {
  expect(house.circles).toEqual([]);
});

it('keeps the workflows, the server and the protocol library in files of at most 400 lines', () => {
  expect(longFiles(root, ['workflows', 'server', 'a2a'], 400)).toEqual([]);
});

it('keeps every function in workflows/ to a body of at most 120 lines (a workflow reads as a table of contents)', () => {
  expect(longFunctions(root, ['workflows'], 120)).toEqual([]);
});
