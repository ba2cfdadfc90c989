/**
 * Colours people are shown in within one room, all different. A person's profile colour
 * is hashed from their id into ten (or picked by them), so two people in a room often
 * share one. Everyone keeps their own colour unless someone who joined the room earlier
 * already shows it; then they get the first palette colour nobody here uses, and past
 * the palette a hue spread by the golden angle. Joining never changes the colour of
 * anyone already in the room.
 */
export interface Colored {
  id: string;
  color: string;
  /** When they joined the room (ISO time); earlier joiners keep their colour. */
  joinedAt?: string;
}

export function distinctColors(people: Colored[], palette: readonly string[]): Map<string, string> {
  const order = [...people].sort(
    (a, b) => (a.joinedAt ?? '').localeCompare(b.joinedAt ?? '') || a.id.localeCompare(b.id),
  );
  const used = new Set<string>();
  const out = new Map<string, string>();
  let extra = 0;
  for (const p of order) {
    let color = p.color.toLowerCase();
    if (used.has(color)) {
      const free = palette.find((c) => !used.has(c.toLowerCase()));
      if (free) color = free.toLowerCase();
      else {
        do color = `hsl(${Math.round((extra++ * 137.508) % 360)} 65% 48%)`;
        while (used.has(color));
      }
    }
    used.add(color);
    out.set(p.id, color);
  }
  return out;
}
