import { byCreation, definedFields, subjectKey, subjectTaken, withDefaults } from '../agent-records.js';
import type { AgentPatch, AgentRecord, AgentStore, ExternalSubject } from '../ports.js';

export class MemoryAgentStore implements AgentStore {
  readonly #agents = new Map<string, AgentRecord>();
  /** External identity (see `subjectKey`) → the agent it belongs to. */
  readonly #subjects = new Map<string, string>();

  async create(agent: AgentRecord): Promise<void> {
    if (this.#agents.has(agent.agentId)) throw new Error(`agent ${agent.agentId} already exists`);
    const record = withDefaults(structuredClone(agent));
    this.#claimSubjects(record.agentId, record.externalSubjects);
    this.#agents.set(record.agentId, record);
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
    const updated: AgentRecord = structuredClone({ ...agent, ...definedFields(patch), updatedAt });
    if (patch.externalSubjects !== undefined) {
      this.#claimSubjects(agentId, updated.externalSubjects);
      this.#releaseSubjects(
        agentId,
        agent.externalSubjects.filter(
          (old) => !updated.externalSubjects.some((kept) => subjectKey(kept) === subjectKey(old)),
        ),
      );
    }
    this.#agents.set(agentId, updated);
    return structuredClone(updated);
  }

  async delete(agentId: string): Promise<boolean> {
    const agent = this.#agents.get(agentId);
    if (!agent) return false;
    this.#releaseSubjects(agentId, agent.externalSubjects);
    return this.#agents.delete(agentId);
  }

  async findByExternalSubject(subject: ExternalSubject): Promise<string | null> {
    return this.#subjects.get(subjectKey(subject)) ?? null;
  }

  /** All or nothing: one subject of another agent and none is claimed. */
  #claimSubjects(agentId: string, subjects: readonly ExternalSubject[]): void {
    for (const subject of subjects) {
      const owner = this.#subjects.get(subjectKey(subject));
      if (owner !== undefined && owner !== agentId) throw subjectTaken(subject, owner);
    }
    for (const subject of subjects) this.#subjects.set(subjectKey(subject), agentId);
  }

  #releaseSubjects(agentId: string, subjects: readonly ExternalSubject[]): void {
    for (const subject of subjects) {
      const key = subjectKey(subject);
      if (this.#subjects.get(key) === agentId) this.#subjects.delete(key);
    }
  }
}
