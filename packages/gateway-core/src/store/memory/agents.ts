import { byCreation, definedFields } from '../agent-records.js';
import type { AgentPatch, AgentRecord, AgentStore } from '../ports.js';

export class MemoryAgentStore implements AgentStore {
  readonly #agents = new Map<string, AgentRecord>();

  async create(agent: AgentRecord): Promise<void> {
    if (this.#agents.has(agent.agentId)) throw new Error(`agent ${agent.agentId} already exists`);
    this.#agents.set(agent.agentId, structuredClone(agent));
  }

  async get(agentId: string): Promise<AgentRecord | null> {
    const agent = this.#agents.get(agentId);
    return agent ? structuredClone(agent) : null;
  }

  async list(): Promise<AgentRecord[]> {
    return [...this.#agents.values()].map((agent) => structuredClone(agent)).sort(byCreation);
  }

  async update(agentId: string, patch: AgentPatch, updatedAt: string): Promise<AgentRecord | null> {
    const agent = this.#agents.get(agentId);
    if (!agent) return null;
    const updated: AgentRecord = { ...agent, ...definedFields(patch), updatedAt };
    this.#agents.set(agentId, structuredClone(updated));
    return updated;
  }

  async delete(agentId: string): Promise<boolean> {
    return this.#agents.delete(agentId);
  }
}
