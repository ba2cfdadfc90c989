import { useEffect, useState, type ChangeEvent, type FormEvent } from 'react';
import { PALETTE } from '../../lib/ports/profile.ts';
import '../projects/projects.css';
import {
  useAvatarStatus,
  useCanRetryUpload,
  useOwnProfile,
  useProfileLoadError,
  useProfileSend,
  useProfileStatus,
  useSaveState,
  useUploadError,
  useUploadProgress,
} from './profile-context.ts';

/** Display name, colour and avatar. */
export function ProfilePage() {
  const status = useProfileStatus();
  const loadError = useProfileLoadError();
  const send = useProfileSend();
  return (
    <main className="profile-page" aria-labelledby="profile-title">
      <h1 id="profile-title">Your profile</h1>
      <p className="lede">How you appear to the people you work with.</p>
      {status === 'loading' && (
        <p className="center-line" role="status">
          <span className="spinner" aria-hidden="true" /> Loading your profile…
        </p>
      )}
      {status === 'failed' && (
        <div className="message error with-action" role="alert">
          <span>{loadError}</span>
          <button type="button" onClick={() => send({ type: 'profile.retry' })}>
            Try again
          </button>
        </div>
      )}
      {status === 'ready' && (
        <>
          <AvatarSection />
          <DetailsForm />
        </>
      )}
    </main>
  );
}

function DetailsForm() {
  const profile = useOwnProfile();
  const { saving, saved, error } = useSaveState();
  const send = useProfileSend();
  const [color, setColor] = useState(profile?.color ?? PALETTE[0].hex);
  useEffect(() => {
    if (profile) setColor(profile.color);
  }, [profile]);
  if (!profile) return null;

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const name = new FormData(event.currentTarget).get('displayName');
    send({ type: 'profile.save', displayName: typeof name === 'string' ? name : '', color });
  };

  return (
    <section className="profile-section" aria-labelledby="details-title">
      <h2 id="details-title">Name and colour</h2>
      <form onSubmit={onSubmit} aria-busy={saving}>
        <fieldset disabled={saving}>
          <label htmlFor="display-name">Display name</label>
          <input id="display-name" name="displayName" defaultValue={profile.displayName} maxLength={80} required />
        </fieldset>
        <fieldset disabled={saving} role="radiogroup" aria-labelledby="colour-legend">
          <span id="colour-legend" className="label">
            Colour
          </span>
          <div className="swatches">
            {PALETTE.map((swatch) => (
              <label key={swatch.hex} className="swatch" title={swatch.name}>
                <input
                  type="radio"
                  name="color"
                  value={swatch.hex}
                  aria-label={swatch.name}
                  checked={color === swatch.hex}
                  onChange={() => setColor(swatch.hex)}
                />
                <span style={{ background: swatch.hex }} aria-hidden="true" />
              </label>
            ))}
          </div>
        </fieldset>
        {error && (
          <p className="message error" role="alert">
            {error}
          </p>
        )}
        {saved && !saving && (
          <p className="message notice" role="status">
            Profile saved.
          </p>
        )}
        <button type="submit" className="primary" data-busy={saving}>
          Save profile
        </button>
      </form>
    </section>
  );
}

function AvatarSection() {
  const profile = useOwnProfile();
  const status = useAvatarStatus();
  const progress = useUploadProgress();
  const error = useUploadError();
  const canRetry = useCanRetryUpload();
  const send = useProfileSend();
  if (!profile) return null;

  const onFile = (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0];
    if (file) send({ type: 'avatar.upload', file: { file, name: file.name, type: file.type, size: file.size } });
    event.target.value = '';
  };
  const percent = progress.total > 0 ? Math.round((progress.loaded / progress.total) * 100) : 0;

  return (
    <section className="profile-section" aria-labelledby="avatar-title">
      <h2 id="avatar-title">Avatar</h2>
      <div className="avatar-row">
        {profile.avatarUrl ? (
          <img className="avatar-large" src={profile.avatarUrl} alt="Your avatar" />
        ) : (
          <span className="avatar-large" style={{ background: profile.color }} role="img" aria-label="Your initial">
            {profile.displayName.slice(0, 1).toUpperCase()}
          </span>
        )}
        <div className="upload-status">
          <label htmlFor="avatar-file">Upload avatar</label>
          <input
            id="avatar-file"
            type="file"
            accept="image/png,image/jpeg,image/webp,image/gif"
            onChange={onFile}
            disabled={status === 'uploading'}
          />
          {status !== 'idle' && (
            <progress aria-label="Upload progress" max={100} value={status === 'uploaded' ? 100 : percent}>
              {percent}%
            </progress>
          )}
          {status === 'uploading' && <span role="status">Uploading… {percent}%</span>}
          {status === 'uploaded' && <span role="status">Avatar updated.</span>}
          {status === 'failed' && (
            <div className="message error with-action" role="alert">
              <span>{error}</span>
              {canRetry && (
                <button type="button" onClick={() => send({ type: 'avatar.retry' })}>
                  Try again
                </button>
              )}
            </div>
          )}
          <span className="fineprint left">PNG, JPEG, WebP or GIF, up to 2 MB.</span>
        </div>
      </div>
    </section>
  );
}
