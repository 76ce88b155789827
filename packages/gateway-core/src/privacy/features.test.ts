import { describe, expect, it } from 'vitest';
import { AT, COLON, DIGIT, DOT, ENCODED, EQUALS, featuresOf, NON_ASCII, PLUS, shapeOf } from './features.js';

describe('featuresOf', () => {
  it.each([
    ['', 0],
    ['plain words', 0],
    ['a1', DIGIT],
    ['a@b.c', AT | DOT],
    ['+44: x', PLUS | DIGIT | COLON],
    ['café', NON_ASCII],
    ['salt & pepper', ENCODED],
    ['a%40b', ENCODED | DIGIT],
    ['a=b', EQUALS],
    ['50% off', DIGIT],
    ['YWxpY2VAZXhhbXBsZQ', ENCODED | DIGIT],
    ['d41d8cd98f00b204e9800998ecf8427e', DIGIT],
    ['abcdefghijklmno', 0],
  ])('%j has %i', (text, features) => {
    expect(featuresOf(text)).toBe(features);
  });
});

describe('shapeOf', () => {
  it.each([
    ['', 0],
    ['no digits', 0],
    ['id 42', 2],
    ['2025-01-01T10:00:00Z', 8],
    ['+44 (20) 7946-0958 on 2024-01-15', 12],
    ['10.0.0.1:8080', 5],
    ['4111 1111 1111 1111', 16],
    ['4111_1111', 4],
    ['4111\u00A01111 (not folded here)', 4],
    ['\uFF11 full-width is no ASCII digit', 0],
    ['1'.repeat(1000), 255],
  ])('%j holds at most %i digits in one group (counted up to 255) beside its features', (text, digits) => {
    expect(shapeOf(text) >>> 8).toBe(digits);
    expect(shapeOf(text) & 0xff).toBe(featuresOf(text));
  });
});
