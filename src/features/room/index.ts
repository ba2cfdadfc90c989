// The room's public face for the router and the app shell.
export { RoomView } from './RoomView.tsx';
export { ConnectionBanner } from './ConnectionBanner.tsx';
export { ConnectionContext } from './connection-context.ts';
export { RoomContext } from './room-context.ts';
