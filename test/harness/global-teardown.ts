export default async function globalTeardown(): Promise<void> {
  await globalThis.__plannerDevServer?.stop();
  globalThis.__plannerDevServer = undefined;
}
