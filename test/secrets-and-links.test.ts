// No URL credentials in history, logs or failure messages; alert links that point at the real UI.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { createAlertOperator } from '../activities/alert-operator';
import { uiUrlFor } from '../cli/embedded-planner';
import { DelegatedTaskInputSchema } from '../workflows/delegated-task/input';

it('refuses an agent URL with user:password@ and says where the credential goes', () => {
  const r = DelegatedTaskInputSchema.safeParse({ agent: { name: 'deployer', url: 'http://ops:hunter2@127.0.0.1:1/' }, message: { text: 'x' } });
  expect(r.success).toBe(false);
  expect(JSON.stringify(r.error?.issues)).toContain('A2A_AGENT_CREDENTIALS');
  expect(DelegatedTaskInputSchema.safeParse({ agent: { name: 'deployer', url: 'http://127.0.0.1:1/a@b' }, message: { text: 'x' } }).success).toBe(true);
});

it("names the alert webhook's host, never its secret path, when the webhook refuses an alert", async () => {
  const server = createServer((_req, res) => res.writeHead(403).end());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  try {
    const secretPath = '/services/T000/B000/s3cr3t-token-in-path';
    const alert = createAlertOperator({ sinks: ['webhook'], webhookUrl: `http://127.0.0.1:${port}${secretPath}`, namespace: 'default' }, pino({ level: 'silent' }));
    const err = (await alert({ kind: 'auth', workflowId: 'w', agent: 'deployer', taskId: 't', text: 'approve', idempotencyKey: 'k' }).catch((e: unknown) => e)) as Error;
    expect(err.message).toContain(`host 127.0.0.1:${port}`);
    expect(err.message).toContain('HTTP 403');
    expect(err.message).not.toContain('s3cr3t');
  } finally {
    server.close();
  }
});

it('links alerts to the UI that `planner start` started, unless PLANNER_UI_URL says otherwise', () => {
  expect(uiUrlFor({}, 'http://127.0.0.1:9233', 'http://127.0.0.1:8233')).toBe('http://127.0.0.1:9233');
  expect(uiUrlFor({ PLANNER_UI_URL: 'https://ui.example' }, 'http://127.0.0.1:9233', 'https://ui.example')).toBe('https://ui.example');
  expect(uiUrlFor({}, undefined, 'http://127.0.0.1:8233')).toBe('http://127.0.0.1:8233');
});
