/** A person's avatar: their colour as a ring, their image or initials, and a dot when online. */
export function Avatar({
  name,
  color,
  avatarUrl,
  online,
  label,
  size = 32,
}: {
  name: string;
  color: string;
  avatarUrl: string | null;
  online: boolean;
  label: string;
  size?: number;
}) {
  const initials = name
    .split(/[\s._-]+/)
    .filter(Boolean)
    .slice(0, 2)
    .map((part) => part.charAt(0).toUpperCase())
    .join('');
  return (
    <span
      className="room-avatar"
      role="img"
      aria-label={label}
      style={{ width: size, height: size, boxShadow: `0 0 0 2px var(--surface), 0 0 0 4px ${color}` }}
    >
      {avatarUrl ? (
        <img src={avatarUrl} alt="" width={size} height={size} />
      ) : (
        <span aria-hidden="true" style={{ background: color }}>
          {initials || '?'}
        </span>
      )}
      {online && <span className="room-avatar-dot" aria-hidden="true" />}
    </span>
  );
}
