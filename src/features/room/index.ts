// The room's public face for the router and the app shell.
export { RoomView } from './RoomView.tsx';
export { ConnectionBanner } from './ConnectionBanner.tsx';
