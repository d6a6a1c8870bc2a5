/** "abc123, def456\n789" -> ["abc123", "def456", "789"] */
export function parseShas(text: string): string[] {
  return text
    .split(/[\s,]+/)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}
