// The Inspector (fields for every part of a chart) with the Export menu and the Import button.
export { Inspector } from './Inspector.tsx';
