import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import {
  detectResources,
  resourceAttributesEnvDetector,
  resourceFromAttributes,
  serviceNameEnvDetector,
} from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  TracerProvider,
  type BatchSpanProcessorOptions,
  type Sampler,
} from '@opentelemetry/sdk-trace';

export const DEFAULT_SERVICE_NAME = 'tollgate-gateway';

type Env = Readonly<Record<string, string | undefined>>;

/** A running tracing SDK. */
export interface Tracing {
  /** Exports the spans still queued and stops; call after the HTTP server has drained. */
  shutdown(): Promise<void>;
}

export interface TracingStart {
  /** Null when tracing is off: no SDK was registered and nothing will be exported. */
  tracing: Tracing | null;
  /** Settings that were understood differently than asked, one line each. */
  warnings: string[];
}

/**
 * Tracing is off unless an OTLP endpoint is configured the standard way
 * (`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` or `OTEL_EXPORTER_OTLP_ENDPOINT`), and
 * `OTEL_SDK_DISABLED=true` or `OTEL_TRACES_EXPORTER=none` turn it off again.
 */
export function tracingEnabled(env: Env): boolean {
  const endpoint = present(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) ?? present(env.OTEL_EXPORTER_OTLP_ENDPOINT);
  if (endpoint === undefined) return false;
  if (present(env.OTEL_SDK_DISABLED)?.toLowerCase() === 'true') return false;
  return present(env.OTEL_TRACES_EXPORTER)?.toLowerCase() !== 'none';
}

/**
 * Registers the OpenTelemetry SDK globally when configured: a tracer
 * provider batching spans to the OTLP/HTTP exporter (which reads its own
 * `OTEL_EXPORTER_OTLP_*` endpoint, headers, timeout and compression), W3C
 * trace context and baggage propagation, and an AsyncLocalStorage context
 * manager so a request's spans nest. Called first thing in main, before
 * any request can start a span.
 */
export function startTracing(version: string, env: Env = process.env): TracingStart {
  if (!tracingEnabled(env)) return { tracing: null, warnings: [] };
  const warnings: string[] = [];
  const protocol = present(env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL) ?? present(env.OTEL_EXPORTER_OTLP_PROTOCOL);
  if (protocol !== undefined && protocol !== 'http/json') {
    warnings.push(`OTLP protocol ${protocol} is not supported; traces are exported as http/json`);
  }
  const sampler = samplerFrom(env, warnings);
  const resource = resourceFromAttributes({ 'service.name': DEFAULT_SERVICE_NAME, 'service.version': version }).merge(
    // OTEL_RESOURCE_ATTRIBUTES and OTEL_SERVICE_NAME override the defaults.
    detectResources({ detectors: [resourceAttributesEnvDetector, serviceNameEnvDetector] }),
  );
  const processor = new BatchSpanProcessor({ exporter: new OTLPTraceExporter(), ...batchOptionsFrom(env, warnings) });
  const provider = new TracerProvider({ resource, sampler, spanProcessors: [processor] });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(
    new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }),
  );
  trace.setGlobalTracerProvider(provider);
  return {
    tracing: { shutdown: () => provider.shutdown() },
    warnings,
  };
}

/**
 * `OTEL_TRACES_SAMPLER` / `OTEL_TRACES_SAMPLER_ARG`; the default follows the caller's decision and samples new traces.
 */
function samplerFrom(env: Env, warnings: string[]): Sampler {
  const name = present(env.OTEL_TRACES_SAMPLER)?.toLowerCase() ?? 'parentbased_always_on';
  const ratio = () => {
    const arg = Number(present(env.OTEL_TRACES_SAMPLER_ARG) ?? '1');
    if (Number.isFinite(arg) && arg >= 0 && arg <= 1) return new TraceIdRatioBasedSampler(arg);
    warnings.push(`OTEL_TRACES_SAMPLER_ARG must be a number from 0 to 1; sampling every trace`);
    return new TraceIdRatioBasedSampler(1);
  };
  switch (name) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return ratio();
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: ratio() });
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    default:
      warnings.push(`OTEL_TRACES_SAMPLER ${name} is not supported; using parentbased_always_on`);
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
  }
}

/** `OTEL_BSP_*`: the batch processor's delay, queue, batch size and export timeout; the SDK's defaults otherwise. */
function batchOptionsFrom(env: Env, warnings: string[]): Omit<BatchSpanProcessorOptions, 'exporter'> {
  const settings = {
    scheduledDelayMillis: 'OTEL_BSP_SCHEDULE_DELAY',
    exportTimeoutMillis: 'OTEL_BSP_EXPORT_TIMEOUT',
    maxQueueSize: 'OTEL_BSP_MAX_QUEUE_SIZE',
    maxExportBatchSize: 'OTEL_BSP_MAX_EXPORT_BATCH_SIZE',
  } as const;
  const options: Omit<BatchSpanProcessorOptions, 'exporter'> = {};
  for (const [option, name] of Object.entries(settings) as [keyof typeof settings, string][]) {
    const raw = present(env[name]);
    if (raw === undefined) continue;
    const value = Number(raw);
    if (Number.isSafeInteger(value) && value > 0) options[option] = value;
    else warnings.push(`${name} must be a positive integer; using the default`);
  }
  return options;
}

function present(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed === '' ? undefined : trimmed;
}
