// A schedule's cron expression checked field by field before Temporal sees it, so that an
// out-of-range or malformed field is the caller's 400 naming the field and its value (Temporal's
// own refusal came back as a 500). The layout is Temporal's: 5 fields (minute hour day-of-month
// month day-of-week), 6 (the same and a year), 7 (a second first, a year last). Each field is a
// comma list of `*`, a value or a range, each with an optional `/step` (Temporal refuses `?`);
// months and days of the week also by their three-letter names. No regex runs on the caller's
// text here: the fields are split and each number read by hand.

interface Field {
  name: string;
  min: number;
  max: number;
  names?: readonly string[];
}

const SECOND: Field = { name: 'second', min: 0, max: 59 };
const MINUTE: Field = { name: 'minute', min: 0, max: 59 };
const HOUR: Field = { name: 'hour', min: 0, max: 23 };
const DAY_OF_MONTH: Field = { name: 'day of month', min: 1, max: 31 };
const MONTH: Field = { name: 'month', min: 1, max: 12, names: ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'] };
const DAY_OF_WEEK: Field = { name: 'day of week', min: 0, max: 7, names: ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] };
const YEAR: Field = { name: 'year', min: 1970, max: 9999 };

const LAYOUTS: Record<number, Field[]> = {
  5: [MINUTE, HOUR, DAY_OF_MONTH, MONTH, DAY_OF_WEEK],
  6: [MINUTE, HOUR, DAY_OF_MONTH, MONTH, DAY_OF_WEEK, YEAR],
  7: [SECOND, MINUTE, HOUR, DAY_OF_MONTH, MONTH, DAY_OF_WEEK, YEAR],
};

const isDigits = (s: string): boolean => s.length > 0 && s.length <= 9 && [...s].every((c) => c >= '0' && c <= '9');

/** A value of the field (a number, or a name where the field has names), or why not. */
function valueOf(f: Field, text: string): number | string {
  if (isDigits(text)) {
    const n = Number(text);
    return n < f.min || n > f.max ? `${n} is out of range ${f.min}-${f.max}` : n;
  }
  const i = f.names?.indexOf(text.toLowerCase()) ?? -1;
  if (i >= 0) return f === MONTH ? i + 1 : i;
  const shown = JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text);
  return `${shown} is not a number${f.names ? ` or a name (${f.names[0]}-${f.names.at(-1)})` : ''}`;
}

/** Why one item of a field's comma list is wrong, or undefined. */
function itemProblem(f: Field, item: string): string | undefined {
  const slash = item.indexOf('/');
  const base = slash < 0 ? item : item.slice(0, slash);
  if (slash >= 0) {
    const step = item.slice(slash + 1);
    if (!isDigits(step) || Number(step) < 1) return `the step in ${JSON.stringify(item)} must be a whole number of at least 1`;
  }
  if (base === '*') return undefined;
  const dash = base.indexOf('-');
  const ends = dash < 0 ? [base] : [base.slice(0, dash), base.slice(dash + 1)];
  const values: number[] = [];
  for (const end of ends) {
    const v = valueOf(f, end);
    if (typeof v === 'string') return v;
    values.push(v);
  }
  if (values.length === 2 && values[0]! > values[1]!) return `the range ${JSON.stringify(base)} starts after it ends`;
  return undefined;
}

/** Why a cron expression would not run as written, naming the field and its value; undefined when it is fine. */
export function cronProblem(expression: string): string | undefined {
  const fields = expression.split(' ').filter((f) => f !== '');
  const layout = LAYOUTS[fields.length];
  if (!layout) return `a cron expression has 5 fields (minute hour day-of-month month day-of-week), 6 (and a year) or 7 (a second first and a year last), not ${fields.length}`;
  for (let i = 0; i < layout.length; i++) {
    const f = layout[i]!;
    for (const item of fields[i]!.split(',')) {
      const problem = itemProblem(f, item);
      if (problem) return `${f.name} field (field ${i + 1} of ${fields.length}): ${problem}`;
    }
  }
  return undefined;
}
