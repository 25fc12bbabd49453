/** The sign-up page's strings in Portuguese: loaded with the page (lib/i18n `PAGE_CATALOGUES`), not in the first load. */
const signup = {
  signup: {
    title: 'Cadastre-se',
    companyName: 'Nome da empresa',
    name: 'Seu nome',
    email: 'Email',
    password: 'Senha',
    phone: 'Telefone com (DDD)',
    plan: 'Plano',
    planOption: '{{name}} - Atendentes: {{users}} - Conexões: {{connections}} - Filas: {{queues}} - {{amount}}',
    noPlans: 'Nenhum plano disponível',
    submit: 'Cadastrar',
    login: 'Já tem uma conta? Entre!',
    success: 'Usuário criado com sucesso! Faça seu login!',
    failure: 'Erro ao criar usuário, verifique os dados.',
  },
};

export default signup;
