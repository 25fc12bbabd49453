import type pt from './pt';

const quickMessages: typeof pt = {
  quickMessages: {
    title: 'Quick answers',
    search: 'Search...',
    add: 'Add',
    addTitle: 'Add quick answer',
    editTitle: 'Edit quick answer',
    shortcode: 'Shortcode',
    message: 'Answer',
    media: 'File',
    noMedia: 'No attachment',
    geral: 'Shared',
    actions: 'Actions',
    attach: 'Attach file',
    removeFile: 'Remove file',
    readOnly: 'Only its owner can edit this private answer.',
    empty: 'No quick answers found.',
    saved: 'Quick answer saved.',
    deleted: 'Quick answer deleted.',
    deleteTitle: 'Delete the quick answer {{name}}?',
    deleteText: 'This cannot be undone.',
  },
};

export default quickMessages;
