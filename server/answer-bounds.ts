// The one size bound on an answer, wherever a caller gives one (the API's two answer routes, a
// follow-up message on the A2A face): an answer is forwarded to an agent and kept in histories,
// so it is bounded on its own, well below the body limit (PLANNER_ANSWER_MAX_BYTES). Its depth is
// bounded with every body's (json-depth.ts).

/** Why the answer is too large, naming which part (`text` or `data`) and the bound; undefined when it fits. */
export function answerSizeProblem(answer: { text?: string; data?: unknown }, maxBytes: number): { part: 'text' | 'data'; message: string } | undefined {
  const over = (bytes: number, what: string): string =>
    `${what} is ${bytes} bytes, more than an answer may be: PLANNER_ANSWER_MAX_BYTES (${maxBytes}); send a link or a smaller answer`;
  if (answer.text !== undefined) {
    const bytes = Buffer.byteLength(answer.text, 'utf8');
    if (bytes > maxBytes) return { part: 'text', message: over(bytes, 'the text (UTF-8)') };
  }
  if (answer.data !== undefined) {
    const bytes = Buffer.byteLength(JSON.stringify(answer.data) ?? '', 'utf8');
    if (bytes > maxBytes) return { part: 'data', message: over(bytes, 'the data (as JSON)') };
  }
  return undefined;
}
