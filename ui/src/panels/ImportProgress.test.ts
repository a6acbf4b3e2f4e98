import { describe, expect, it } from "vitest";
import { clock, remaining } from "./ImportProgress";

describe("the time an import has left", () => {
  it("is the pace so far times what is left, and unknown before the first item and after the last", () => {
    expect(remaining(0, 30_000, 1, 4)).toBe(90_000);
    expect(remaining(0, 60_000, 3, 4)).toBe(20_000);
    expect(remaining(0, 10_000, 0, 4)).toBeNull();
    expect(remaining(0, 10_000, 4, 4)).toBeNull();
  });

  it("reads as a clock, rounded up to the second", () => {
    expect(clock(90_000)).toBe("1:30");
    expect(clock(400)).toBe("0:01");
    expect(clock(3_725_000)).toBe("1:02:05");
  });
});
