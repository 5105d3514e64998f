/**
 * `@loopguard/core/testing`: helpers for testing code that embeds loopguard. `ManualClock` (in the
 * main entry) drives time; the port contract suites are added here.
 * @packageDocumentation
 */

export {};
