import { describe, expect, it } from 'vitest';
import { TooManyCallsError } from '../errors.js';
import { ResumeAdmission } from './resume-admission.js';

describe('ResumeAdmission', () => {
  it('bounds each agent and all agents together, and frees a place once, when its resume ends', () => {
    const admission = new ResumeAdmission(2, 3);
    const a1 = admission.enter('a');
    admission.enter('a');
    expect(() => admission.enter('a')).toThrow(TooManyCallsError);
    const b1 = admission.enter('b');
    expect(() => admission.enter('c')).toThrow(/holds 3 resumed streams/);
    b1();
    b1();
    admission.enter('c');
    expect(() => admission.enter('d')).toThrow(TooManyCallsError);
    a1();
    expect(() => admission.enter('a')).not.toThrow();
  });

  it('refuses bounds that are not positive integers', () => {
    expect(() => new ResumeAdmission(0, 1)).toThrow(RangeError);
    expect(() => new ResumeAdmission(1, 1.5)).toThrow(RangeError);
  });
});
