import type pt from './pt';

const quickMessages: typeof pt = {
  quickMessages: {
    title: 'Hızlı yanıtlar',
    search: 'Ara...',
    add: 'Ekle',
    addTitle: 'Hızlı yanıt ekle',
    editTitle: 'Hızlı yanıtı düzenle',
    shortcode: 'Kısayol',
    message: 'Yanıt',
    media: 'Dosya',
    noMedia: 'Ek yok',
    geral: 'Paylaşılan',
    actions: 'İşlemler',
    attach: 'Dosya ekle',
    removeFile: 'Dosyayı kaldır',
    readOnly: 'Bu özel yanıtı yalnızca sahibi düzenleyebilir.',
    empty: 'Hızlı yanıt bulunamadı.',
    saved: 'Hızlı yanıt kaydedildi.',
    deleted: 'Hızlı yanıt silindi.',
    deleteTitle: '{{name}} hızlı yanıtı silinsin mi?',
    deleteText: 'Bu işlem geri alınamaz.',
  },
};

export default quickMessages;
