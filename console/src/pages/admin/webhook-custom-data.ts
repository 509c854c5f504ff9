const maxCustomDataBytes = 4 * 1024;

/** Reads the custom data field: empty means none; otherwise a JSON object of at most 4 KB. */
export function parseCustomData(
  text: string,
): { data: Record<string, unknown> | null } | { problem: string } {
  if (!text.trim()) return { data: null };
  if (new TextEncoder().encode(text).length > maxCustomDataBytes)
    return { problem: 'Custom data must be at most 4 KB of JSON' };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return { problem: `Custom data is not valid JSON: ${(error as Error).message}` };
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    return { problem: 'Custom data must be a JSON object, e.g. {"team": "qa"}' };
  return { data: parsed as Record<string, unknown> };
}
