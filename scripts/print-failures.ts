// After `npm test`: the failed tests of each jest run again, last and short, so that a log cut to
// its head and tail (CI shows only those) still names what failed and why.
import { existsSync, readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { stripVTControlCharacters } from 'node:util';

interface JestJson {
  testResults: Array<{ name: string; message: string; assertionResults: Array<{ fullName: string; status: string; failureMessages: string[] }> }>;
}

const LINES = 40;
const head = (s: string): string => {
  // Stack frames inside jest, node or a package say nothing about the failure.
  const lines = stripVTControlCharacters(s).split('\n').filter((l) => l.trim() !== '' && !/^\s*at .*(node_modules|node:internal|\(<anonymous>\))/.test(l));
  return lines.slice(0, LINES).map((l) => `    ${l}`).join('\n') + (lines.length > LINES ? `\n    … (${lines.length - LINES} more lines in the run's own output, above)` : '');
};

for (const file of process.argv.slice(2)) {
  if (!existsSync(file)) {
    console.log(`Failed tests: ${file} was not written (jest did not finish).`);
    continue;
  }
  const run = JSON.parse(readFileSync(file, 'utf8')) as JestJson;
  for (const suite of run.testResults) {
    const failed = suite.assertionResults.filter((a) => a.status === 'failed');
    const where = relative(process.cwd(), suite.name);
    // A suite that failed to run (a beforeAll, a syntax error) has no failed assertion, only a message.
    if (failed.length === 0 && suite.message) console.log(`Failed suite: ${where}\n${head(suite.message)}`);
    for (const a of failed) console.log(`Failed test: ${where} › ${a.fullName}\n${head(a.failureMessages.join('\n'))}`);
  }
}
