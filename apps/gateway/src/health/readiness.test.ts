import type { EmbeddingModel } from '@tollgate/gateway-core';
import { StoreUnavailableError } from '@tollgate/gateway-core/errors';
import { createMemoryStore, PartialStoreOutage, type GatewayStore } from '@tollgate/gateway-core/store';
import { describe, expect, it } from 'vitest';
import { createReadiness } from './readiness.js';

/** A model behind the EmbeddingModel port whose health the test switches. */
function switchableModel() {
  const state = { failing: false, embeds: 0 };
  const model: EmbeddingModel = {
    name: 'switchable',
    async embed(texts) {
      state.embeds += 1;
      if (state.failing) throw new Error('the embedding worker stopped');
      return texts.map(() => [0.6, 0.8]);
    },
  };
  return { model, state };
}

const waitFor = async (probe: () => boolean) => {
  for (let i = 0; i < 100 && !probe(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
};

describe('createReadiness', () => {
  it('is unhealthy until the model has embedded the test sentence, then healthy', async () => {
    const { model } = switchableModel();
    let load!: (model: EmbeddingModel) => void;
    const readiness = createReadiness({
      store: createMemoryStore(),
      embeddingModel: new Promise((resolve) => (load = resolve)),
    });
    expect(await readiness.report()).toMatchObject({
      status: 'Unhealthy',
      components: { embeddingModel: { status: 'Unhealthy', description: 'embedding model is loading' } },
    });
    load(model);
    await readiness.modelChecked;
    expect(await readiness.report()).toMatchObject({ status: 'Healthy' });
  });

  it('notices a loaded model that stopped working, in the background, and its recovery', async () => {
    const { model, state } = switchableModel();
    const readiness = createReadiness({
      store: createMemoryStore(),
      embeddingModel: Promise.resolve(model),
      modelRecheckMs: 0,
    });
    await readiness.modelChecked;
    expect((await readiness.report()).status).toBe('Healthy');

    state.failing = true;
    // The report that notices starts the check; it does not wait for it.
    await readiness.report();
    await waitFor(() => state.embeds >= 3);
    const down = await readiness.report();
    expect(down.status).toBe('Unhealthy');
    expect(down.components.embeddingModel).toEqual({
      status: 'Unhealthy',
      description: 'switchable: the embedding worker stopped',
    });

    state.failing = false;
    await readiness.report();
    await waitFor(() => state.embeds >= 5);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect((await readiness.report()).status).toBe('Healthy');
  });

  it('does not embed again while the verdict is younger than modelRecheckMs', async () => {
    const { model, state } = switchableModel();
    const readiness = createReadiness({
      store: createMemoryStore(),
      embeddingModel: Promise.resolve(model),
      modelRecheckMs: 60_000,
    });
    await readiness.modelChecked;
    for (let i = 0; i < 5; i++) await readiness.report();
    expect(state.embeds).toBe(1);
  });
});

describe('createReadiness with downstreams', () => {
  const healthy = { status: 'Healthy' } as const;
  const degraded = { status: 'Degraded', description: 'tools not loaded: its /gw/schema is being read' } as const;

  it('is Degraded (ready) while some downstream serves, Unhealthy when none does, and the /mcp gate agrees', async () => {
    let servable = true;
    const readiness = createReadiness({
      store: createMemoryStore(),
      embeddingModel: Promise.resolve(switchableModel().model),
      toolsLoaded: () => servable,
      downstreams: () => ({
        servable,
        components: {
          'downstream:orders': healthy,
          'downstream:billing': servable ? degraded : { ...degraded, status: 'Unhealthy' },
        },
      }),
    });
    await readiness.modelChecked;
    expect(await readiness.report()).toEqual({
      status: 'Degraded',
      components: {
        cacheStore: healthy,
        embeddingModel: healthy,
        'downstream:orders': healthy,
        'downstream:billing': degraded,
      },
    });
    expect(await readiness.ready()).toBe(true);

    servable = false;
    expect((await readiness.report()).status).toBe('Unhealthy');
    // The store verdict is fresh, yet no tools: the gate says no, as the report does.
    expect(await readiness.ready()).toBe(false);
  });

  it('is Healthy when every downstream is', async () => {
    const readiness = createReadiness({
      store: createMemoryStore(),
      embeddingModel: Promise.resolve(switchableModel().model),
      toolsLoaded: () => true,
      downstreams: () => ({ servable: true, components: { 'downstream:orders': healthy } }),
    });
    await readiness.modelChecked;
    expect(await readiness.report()).toMatchObject({ status: 'Healthy' });
  });
});

describe('createReadiness with a store that answers in part or slowly (issue 25, finding 12)', () => {
  /** A memory store whose ping the test decides: answers, answers in part, fails, or hangs until released. */
  function pingable() {
    const store: GatewayStore = createMemoryStore();
    const state = { mode: 'up' as 'up' | 'part' | 'down' | 'hang', pings: 0, release: () => {} };
    store.ping = async () => {
      state.pings++;
      if (state.mode === 'part') throw new PartialStoreOutage('1 of 3 masters of the cluster do not answer');
      if (state.mode === 'down')
        throw new StoreUnavailableError('The store is unavailable: no master of the cluster answers');
      if (state.mode === 'hang') await new Promise<void>((resolve) => (state.release = resolve));
    };
    return { store, state };
  }

  it('is Degraded (ready, 200) while one master of a cluster is away, and the /mcp gate stays open', async () => {
    const { store, state } = pingable();
    const readiness = createReadiness({
      store,
      embeddingModel: Promise.resolve(switchableModel().model),
      gateIntervalMs: 0,
    });
    await readiness.modelChecked;
    state.mode = 'part';
    expect(await readiness.report()).toEqual({
      status: 'Degraded',
      components: {
        cacheStore: { status: 'Degraded', description: '1 of 3 masters of the cluster do not answer' },
        embeddingModel: { status: 'Healthy' },
      },
    });
    expect(await readiness.ready()).toBe(true);
    await readiness.report(); // whatever check the gate started in the background
    state.mode = 'down';
    expect((await readiness.report()).status).toBe('Unhealthy');
  });

  it('does not hold /mcp requests on a store check that is slow to answer while its last verdict was ready', async () => {
    const { store, state } = pingable();
    const readiness = createReadiness({
      store,
      embeddingModel: Promise.resolve(switchableModel().model),
      gateIntervalMs: 0,
    });
    await readiness.modelChecked;
    expect(await readiness.ready()).toBe(true);
    state.mode = 'hang';
    const hung = readiness.report();
    // The check hangs (a frozen master, until the command timeout): the gate answers from the recent verdict at once.
    for (let i = 0; i < 5; i++) expect(await readiness.ready()).toBe(true);
    expect(state.pings).toBe(2);
    state.mode = 'down';
    state.release();
    expect((await hung).status).toBe('Healthy'); // the check that hung, answered at last
    expect((await readiness.report()).status).toBe('Unhealthy');
    // Once a check has found the store down, the gate waits for the next check, which says no.
    expect(await readiness.ready()).toBe(false);
  });
});
