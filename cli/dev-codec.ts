// planner dev's Temporal UI decodes payloads through the planner API's codec endpoint (/codec,
// server/codec/), so a large artifact (a claim-check reference in the history) reads as its JSON.
// The dev server takes the codec's URL when it starts, before the API listens: the API's port is
// settled first (a free one for PLANNER_PORT=0). The dev server's UI has no login and cannot send a
// token, so, on a loopback API, its codec takes none (PLANNER_CODEC_AUTH=none) unless set otherwise:
// the UI itself already shows every history to whoever reaches that machine's loopback.
import { freePort } from '../deploy/dev/dev-server';
import type { PlannerConfig } from '../runtime/config';

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|localhost|::1|\[::1\])$/;
const ANY_ADDRESS = /^(0\.0\.0\.0|::|\[::\])$/;

/** The API's port settled (a free one for 0) and the codec URL the browser reaches it at. */
export async function settleCodecEndpoint(config: PlannerConfig): Promise<{ config: PlannerConfig; endpoint: string }> {
  const port = config.PLANNER_PORT || (await freePort(ANY_ADDRESS.test(config.PLANNER_HOST) ? '127.0.0.1' : config.PLANNER_HOST));
  const host = ANY_ADDRESS.test(config.PLANNER_HOST) ? '127.0.0.1' : config.PLANNER_HOST.includes(':') && !config.PLANNER_HOST.startsWith('[') ? `[${config.PLANNER_HOST}]` : config.PLANNER_HOST;
  return { config: { ...config, PLANNER_PORT: port }, endpoint: `http://${host}:${port}/codec` };
}

/**
 * The codec settings for the UI this process started at `uiUrl`: its origin (and the localhost
 * spelling of a 127.0.0.1 one, which a person may type) unless PLANNER_CODEC_ORIGINS is set, and no
 * token on a loopback API unless PLANNER_CODEC_AUTH is set.
 */
export function codecForStartedUi(config: PlannerConfig, env: NodeJS.ProcessEnv, uiUrl: string): PlannerConfig {
  const ui = new URL(uiUrl);
  const twin = ui.hostname === '127.0.0.1' ? [`${ui.protocol}//localhost:${ui.port}`] : [];
  return {
    ...config,
    PLANNER_CODEC_ORIGINS: env.PLANNER_CODEC_ORIGINS ? config.PLANNER_CODEC_ORIGINS : [ui.origin, ...twin],
    PLANNER_CODEC_AUTH: env.PLANNER_CODEC_AUTH || !LOOPBACK.test(config.PLANNER_HOST) ? config.PLANNER_CODEC_AUTH : 'none',
  };
}
