// A .tsx module, named `./view.js` by the file that re-exports it.
export const view = 'view';
