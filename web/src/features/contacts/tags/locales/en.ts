import type pt from './pt';

const tags: typeof pt = {
  tags: {
    title: 'Tags',
    search: 'Search tags...',
    add: 'Add tag',
    addTitle: 'Add tag',
    editTitle: 'Edit tag',
    name: 'Name',
    color: 'Colour',
    kanban: 'Kanban',
    actions: 'Actions',
    empty: 'No tags found.',
    saved: 'Tag saved successfully!',
    deleted: 'Tag deleted successfully!',
    deleteTitle: 'Delete the tag {{name}}?',
    deleteText: 'The tag will be removed from every contact and ticket.',
    tooShort: 'Tag too short!',
  },
};

export default tags;
