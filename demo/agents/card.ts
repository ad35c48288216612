import type { AgentCard, AgentInterface, AgentSkill } from '@a2a-js/sdk';
import type { Binding } from './recorder';

export const JSONRPC_PATH = '/a2a/jsonrpc';
export const REST_PATH = '/a2a/rest';

export interface CardSpec {
  name: string;
  description: string;
  skills: AgentSkill[];
  baseUrl: string;
  streaming: boolean;
  pushNotifications: boolean;
  preferredBinding: Binding;
}

export function skill(id: string, name: string, description: string, examples: string[]): AgentSkill {
  return {
    id,
    name,
    description,
    tags: [id],
    examples,
    inputModes: ['text/plain'],
    outputModes: ['application/json'],
    securityRequirements: [],
  };
}

export function buildCard(spec: CardSpec): AgentCard {
  const jsonRpc: AgentInterface = {
    url: `${spec.baseUrl}${JSONRPC_PATH}`,
    protocolBinding: 'JSONRPC',
    protocolVersion: '1.0',
    tenant: '',
  };
  const rest: AgentInterface = {
    url: `${spec.baseUrl}${REST_PATH}`,
    protocolBinding: 'HTTP+JSON',
    protocolVersion: '1.0',
    tenant: '',
  };
  return {
    name: spec.name,
    description: spec.description,
    version: '0.1.0',
    // Clients pick the first interface they support, so order expresses the preference.
    supportedInterfaces: spec.preferredBinding === 'HTTP+JSON' ? [rest, jsonRpc] : [jsonRpc, rest],
    provider: undefined,
    capabilities: {
      streaming: spec.streaming,
      pushNotifications: spec.pushNotifications,
      extensions: [],
      extendedAgentCard: false,
    },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['application/json', 'text/plain'],
    skills: spec.skills,
    signatures: [],
  };
}
