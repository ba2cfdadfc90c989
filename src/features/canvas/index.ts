// The canvas's public face for the router and the room.
export { CanvasPage, type CanvasPageProps } from './CanvasPage.tsx';
export { PeerCursors, type PeerCursor } from './PeerCursors.tsx';
export { OpenMachineRefContext } from './open-machine-context.ts';
