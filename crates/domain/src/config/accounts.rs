//! People signing in: whether sign-up is open, how long a session lasts, and the first user
//! created at startup (`LANGFUSE_INIT_USER_*`, owner of the `LANGFUSE_INIT_ORG_ID` organization).

use secrecy::SecretString;

use super::vars::{Problems, Vars};
use crate::password::check_new_password;

pub const DISABLE_SIGNUP: &str = "AUTH_DISABLE_SIGNUP";
pub const SESSION_MAX_AGE: &str = "AUTH_SESSION_MAX_AGE";
pub const INIT_USER_EMAIL: &str = "LANGFUSE_INIT_USER_EMAIL";
pub const INIT_USER_NAME: &str = "LANGFUSE_INIT_USER_NAME";
pub const INIT_USER_PASSWORD: &str = "LANGFUSE_INIT_USER_PASSWORD";

/// A session may last from five minutes to a year.
const SESSION_MINUTES: std::ops::RangeInclusive<u64> = 5..=525_600;

#[derive(Debug, Clone)]
pub struct AccountSettings {
    pub disable_signup: bool,
    /// Minutes a session lasts after sign-in (Langfuse's unit for `AUTH_SESSION_MAX_AGE`).
    pub session_max_age_minutes: u64,
    pub init_user: Option<InitUser>,
}

/// The first user, created or updated at every start (idempotent, like the other `LANGFUSE_INIT_*`).
#[derive(Debug, Clone)]
pub struct InitUser {
    pub email: String,
    pub name: Option<String>,
    pub password: SecretString,
}

impl AccountSettings {
    pub(super) fn read(vars: &Vars, problems: &mut Problems) -> Option<Self> {
        let disable_signup = vars.bool(DISABLE_SIGNUP, problems);
        let session_max_age_minutes = vars.positive_integer(SESSION_MAX_AGE, problems).and_then(|minutes| {
            if SESSION_MINUTES.contains(&minutes) {
                Some(minutes)
            } else {
                problems.push(SESSION_MAX_AGE, "must be between 5 and 525600 minutes (a year)");
                None
            }
        });
        let init_user = Self::init_user(vars, problems);
        Some(Self {
            disable_signup: disable_signup?,
            session_max_age_minutes: session_max_age_minutes?,
            init_user: init_user?,
        })
    }

    /// `Some(None)` when no first user is configured.
    fn init_user(vars: &Vars, problems: &mut Problems) -> Option<Option<InitUser>> {
        let (email, name, password) =
            (vars.get(INIT_USER_EMAIL), vars.get(INIT_USER_NAME), vars.get(INIT_USER_PASSWORD));
        if email.is_none() && name.is_none() && password.is_none() {
            return Some(None);
        }
        let (Some(email), Some(password)) = (email, password) else {
            problems.combination(
                &[INIT_USER_EMAIL, INIT_USER_PASSWORD],
                "the first user needs both an email and a password",
            );
            return None;
        };
        if vars.get("LANGFUSE_INIT_ORG_ID").is_none() {
            problems.combination(
                &[INIT_USER_EMAIL, "LANGFUSE_INIT_ORG_ID"],
                "the first user is made owner of the init organization: set LANGFUSE_INIT_ORG_ID (and the project keys)",
            );
            return None;
        }
        let before = problems.len();
        let email = email.trim();
        if !email.contains('@') || email.len() > 320 {
            problems.push(INIT_USER_EMAIL, "must be an email address");
        }
        if let Err(rule) = check_new_password(password) {
            problems.push(INIT_USER_PASSWORD, rule.to_lowercase());
        }
        if problems.len() > before {
            return None;
        }
        Some(Some(InitUser {
            email: email.to_owned(),
            name: name.map(str::to_owned),
            password: password.to_owned().into(),
        }))
    }
}

#[cfg(test)]
mod tests {
    use crate::config::{Config, Role};

    fn env(extra: &[(&str, &str)]) -> Vec<(String, String)> {
        let mut vars = crate::config::tests::base();
        vars.extend(extra.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())));
        vars
    }

    fn problems(extra: &[(&str, &str)]) -> String {
        match Config::from_env_vars(Role::Web, env(extra)) {
            Ok(_) => String::new(),
            Err(error) => format!("{:?}", error.problems.iter().map(|p| &p.variables).collect::<Vec<_>>()),
        }
    }

    #[test]
    fn defaults_and_values() {
        let config = Config::from_env_vars(Role::Web, env(&[])).unwrap();
        assert!(!config.accounts.disable_signup);
        assert_eq!(config.accounts.session_max_age_minutes, 43_200);
        assert!(config.accounts.init_user.is_none());
        let config = Config::from_env_vars(
            Role::Web,
            env(&[
                ("AUTH_DISABLE_SIGNUP", "true"),
                ("AUTH_SESSION_MAX_AGE", "60"),
                ("LANGFUSE_INIT_ORG_ID", "org"),
                ("LANGFUSE_INIT_PROJECT_ID", "p"),
                ("LANGFUSE_INIT_PROJECT_PUBLIC_KEY", "pk-lf-1"),
                ("LANGFUSE_INIT_PROJECT_SECRET_KEY", "sk-lf-1"),
                ("LANGFUSE_INIT_USER_EMAIL", "ada@example.com"),
                ("LANGFUSE_INIT_USER_PASSWORD", "long enough"),
            ]),
        )
        .unwrap();
        assert!(config.accounts.disable_signup);
        assert_eq!(config.accounts.session_max_age_minutes, 60);
        assert_eq!(config.accounts.init_user.unwrap().email, "ada@example.com");
    }

    #[test]
    fn wrong_values_name_their_variable() {
        assert!(problems(&[("AUTH_DISABLE_SIGNUP", "yes")]).contains("AUTH_DISABLE_SIGNUP"));
        assert!(problems(&[("AUTH_SESSION_MAX_AGE", "1")]).contains("AUTH_SESSION_MAX_AGE"));
        let alone = problems(&[("LANGFUSE_INIT_USER_EMAIL", "ada@example.com")]);
        assert!(alone.contains("LANGFUSE_INIT_USER_PASSWORD"), "{alone}");
        let no_org = problems(&[
            ("LANGFUSE_INIT_USER_EMAIL", "a@b.c"),
            ("LANGFUSE_INIT_USER_PASSWORD", "long enough"),
        ]);
        assert!(no_org.contains("LANGFUSE_INIT_ORG_ID"), "{no_org}");
        let init = [
            ("LANGFUSE_INIT_ORG_ID", "org"),
            ("LANGFUSE_INIT_PROJECT_ID", "p"),
            ("LANGFUSE_INIT_PROJECT_PUBLIC_KEY", "pk-lf-1"),
            ("LANGFUSE_INIT_PROJECT_SECRET_KEY", "sk-lf-1"),
            ("LANGFUSE_INIT_USER_EMAIL", "not-an-address"),
            ("LANGFUSE_INIT_USER_PASSWORD", "short"),
        ];
        let both = problems(&init);
        assert!(
            both.contains("LANGFUSE_INIT_USER_EMAIL") && both.contains("LANGFUSE_INIT_USER_PASSWORD"),
            "{both}"
        );
    }
}
