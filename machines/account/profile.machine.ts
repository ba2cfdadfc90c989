import { assertEvent, assign, setup } from 'xstate';
import type { AvatarFile, OwnProfile, ProfileEdit, UploadFact } from '../../src/lib/ports/profile.ts';
import type { Result } from '../../src/lib/ports/room.ts';
import { output, request, requestNotProvided, streamNotProvided, UNEXPECTED } from '../shared.ts';

/**
 * One's own profile: load it, then two independent regions, `details` (display name and
 * colour, saved together) and `avatar` (upload with progress, then point the profile at
 * the new file). The upload is an invoked stream, so leaving `uploading` aborts it.
 */

export type ProfileIntent =
  | { type: 'profile.retry' }
  | { type: 'profile.save'; displayName: string; color: string }
  | { type: 'avatar.upload'; file: AvatarFile }
  | { type: 'avatar.retry' };

export type ProfileEvent = ProfileIntent | UploadFact;

export interface ProfileContext {
  userId: string;
  profile: OwnProfile | null;
  loadError: string | null;
  saveError: string | null;
  file: AvatarFile | null;
  progress: { loaded: number; total: number };
  uploadError: string | null;
}

export type ProfileTag =
  'loading' | 'failed' | 'ready' | 'saving' | 'saved' | 'uploading' | 'uploaded' | 'uploadFailed';

type Save = { userId: string; edit: ProfileEdit };

export const profileMachine = setup({
  types: {
    context: {} as ProfileContext,
    events: {} as ProfileEvent,
    input: {} as { userId: string },
    tags: {} as ProfileTag,
  },
  actors: {
    loadProfile: requestNotProvided<Result<OwnProfile>, { userId: string }>('profile', 'loadProfile'),
    saveProfile: requestNotProvided<Result<OwnProfile>, Save>('profile', 'saveProfile'),
    uploadAvatar: streamNotProvided<UploadFact, { userId: string; file: AvatarFile }>('profile', 'uploadAvatar'),
  },
  guards: {
    refused: (_, result: Result<OwnProfile>) => !result.ok,
    hasFile: ({ context }) => context.file !== null,
  },
  actions: {
    showLoaded: assign((_, result: Result<OwnProfile>) =>
      result.ok ? { profile: result.value, loadError: null } : { loadError: result.error.message },
    ),
    showSaved: assign((_, result: Result<OwnProfile>) =>
      result.ok ? { profile: result.value, saveError: null } : { saveError: result.error.message },
    ),
    clearSaveError: assign({ saveError: null }),
    unexpectedLoad: assign({ loadError: UNEXPECTED }),
    unexpectedSave: assign({ saveError: UNEXPECTED }),
    takeFile: assign(({ event }) => {
      assertEvent(event, 'avatar.upload');
      return { file: event.file };
    }),
    startUpload: assign(({ context }) => ({
      uploadError: null,
      progress: { loaded: 0, total: context.file?.size ?? 0 },
    })),
    showProgress: assign(({ event }) => {
      assertEvent(event, 'upload.progressed');
      return { progress: { loaded: event.loaded, total: event.total } };
    }),
    showUploadFailure: assign(({ event }) => {
      assertEvent(event, 'upload.failed');
      return { uploadError: event.message };
    }),
    showAttachFailure: assign((_, result: Result<OwnProfile>) =>
      result.ok ? { profile: result.value } : { uploadError: result.error.message },
    ),
    unexpectedUpload: assign({ uploadError: UNEXPECTED }),
  },
}).createMachine({
  id: 'profile',
  context: ({ input }) => ({
    userId: input.userId,
    profile: null,
    loadError: null,
    saveError: null,
    file: null,
    progress: { loaded: 0, total: 0 },
    uploadError: null,
  }),
  initial: 'loading',
  states: {
    loading: {
      tags: ['loading'],
      invoke: {
        id: 'loadProfile',
        src: 'loadProfile',
        input: ({ context }) => ({ userId: context.userId }),
        ...request({
          refused: { target: 'failed', actions: { type: 'showLoaded', params: output } },
          done: { target: 'ready', actions: { type: 'showLoaded', params: output } },
          threw: { target: 'failed', actions: 'unexpectedLoad' },
        }),
      },
    },
    failed: { tags: ['failed'], on: { 'profile.retry': 'loading' } },
    ready: {
      tags: ['ready'],
      type: 'parallel',
      states: {
        details: {
          initial: 'editing',
          states: {
            editing: { on: { 'profile.save': 'saving' } },
            saving: {
              tags: ['saving'],
              entry: 'clearSaveError',
              invoke: {
                id: 'saveDetails',
                src: 'saveProfile',
                input: ({ context, event }) => {
                  assertEvent(event, 'profile.save');
                  return { userId: context.userId, edit: { displayName: event.displayName, color: event.color } };
                },
                ...request({
                  refused: { target: 'editing', actions: { type: 'showSaved', params: output } },
                  done: { target: 'saved', actions: { type: 'showSaved', params: output } },
                  threw: { target: 'editing', actions: 'unexpectedSave' },
                }),
              },
            },
            saved: { tags: ['saved'], on: { 'profile.save': 'saving' } },
          },
        },
        avatar: {
          initial: 'idle',
          states: {
            idle: { on: { 'avatar.upload': { target: 'uploading', actions: 'takeFile' } } },
            uploading: {
              tags: ['uploading'],
              entry: 'startUpload',
              invoke: {
                id: 'uploadAvatar',
                src: 'uploadAvatar',
                input: ({ context }) => ({ userId: context.userId, file: context.file as AvatarFile }),
                onError: { target: 'failed', actions: 'unexpectedUpload' },
              },
              on: {
                'upload.progressed': { actions: 'showProgress' },
                'upload.finished': 'attaching',
                'upload.failed': { target: 'failed', actions: 'showUploadFailure' },
              },
            },
            attaching: {
              tags: ['uploading'],
              invoke: {
                id: 'attachAvatar',
                src: 'saveProfile',
                input: ({ context, event }) => {
                  assertEvent(event, 'upload.finished');
                  return { userId: context.userId, edit: { avatarPath: event.path } };
                },
                ...request({
                  refused: { target: 'failed', actions: { type: 'showAttachFailure', params: output } },
                  done: { target: 'done', actions: { type: 'showAttachFailure', params: output } },
                  threw: { target: 'failed', actions: 'unexpectedUpload' },
                }),
              },
            },
            done: { tags: ['uploaded'], on: { 'avatar.upload': { target: 'uploading', actions: 'takeFile' } } },
            failed: {
              tags: ['uploadFailed'],
              on: {
                'avatar.upload': { target: 'uploading', actions: 'takeFile' },
                'avatar.retry': { guard: 'hasFile', target: 'uploading' },
              },
            },
          },
        },
      },
    },
  },
});

export type ProfileMachine = typeof profileMachine;
