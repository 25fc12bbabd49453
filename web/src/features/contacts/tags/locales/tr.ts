import type pt from './pt';

const tags: typeof pt = {
  tags: {
    title: 'Etiketler',
    search: 'Etiket ara...',
    add: 'Etiket ekle',
    addTitle: 'Etiket ekle',
    editTitle: 'Etiketi düzenle',
    name: 'Ad',
    color: 'Renk',
    kanban: 'Kanban',
    actions: 'İşlemler',
    empty: 'Etiket bulunamadı.',
    saved: 'Etiket başarıyla kaydedildi!',
    deleted: 'Etiket başarıyla silindi!',
    deleteTitle: '{{name}} etiketi silinsin mi?',
    deleteText: 'Etiket tüm kişilerden ve taleplerden kaldırılacak.',
    tooShort: 'Etiket çok kısa!',
  },
};

export default tags;
