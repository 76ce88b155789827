import { InvalidInputError } from '@tollgate/gateway-core/errors';
import type { LabelledUsageReport, UsageReader, UsageSubset } from '../usage/usage-reader.js';
import { unlessStoreUnavailable } from './store-reads.js';
import type { UsageRangeChoice } from './usage-range.js';

/**
 * The reports of a page's range, or why that range cannot be shown (a bad custom range, or the store unavailable:
 * said on the page, not an error page).
 */
export type PageUsage =
  | { reports: LabelledUsageReport[]; problem?: undefined }
  | { reports: LabelledUsageReport[]; problem: string };

/** An empty report, for the sections of a page whose range could not be read. */
export const EMPTY_REPORT: LabelledUsageReport = {
  from: '',
  to: '',
  interval: 'hour',
  groupBy: null,
  buckets: [],
  totals: [],
  labels: {},
};

/** One report per grouping of the page's range (`only`: one tool's or downstream's calls). */
export async function pageUsage(
  reader: UsageReader,
  range: UsageRangeChoice,
  groupings: ReadonlyArray<string | undefined>,
  only?: UsageSubset,
): Promise<PageUsage> {
  try {
    const read = await unlessStoreUnavailable(reader.reports(range.params, groupings, only), 'Usage');
    return read.problem === undefined
      ? { reports: read.value }
      : { reports: groupings.map(() => EMPTY_REPORT), ...read };
  } catch (error) {
    if (!(error instanceof InvalidInputError)) throw error;
    const reason = error.fields.map((field) => `${field.path} ${field.message}`).join('; ');
    return { reports: groupings.map(() => EMPTY_REPORT), problem: `This range cannot be shown: ${reason}.` };
  }
}
