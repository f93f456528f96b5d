"""Account pages under /accounts/ (the profile page is in pages: armada_web/urls.py)."""

from django.contrib.auth import views as auth
from django.urls import path, reverse_lazy

from armada_web.accounts import views
from armada_web.accounts.forms import ThrottledLoginForm
from armada_web.web import inputs  # noqa: F401  (registers the <id:> and <username:> converters)

T = "accounts/"

urlpatterns = [
    path("signup/", views.signup, name="signup"),
    path("login/", views.LogIn.as_view(template_name=T + "login.html", authentication_form=ThrottledLoginForm,
                                       redirect_authenticated_user=True), name="login"),
    path("logout/", auth.LogoutView.as_view(), name="logout"),
    path("tokens/<id:pk>/revoke/", views.revoke_token, name="revoke-token"),
    path("mail/", views.mail_preferences, name="mail-preferences"),
    path("email/", views.change_email, name="email-change"),
    path("email/cancel/", views.cancel_email, name="email-cancel"),
    path("email/confirm/<str:token>/", views.confirm_email, name="email-confirm"),
    path("delete/", views.delete_account, name="delete-account"),
    path("password/", views.PasswordChange.as_view(
        template_name=T + "form.html", success_url=reverse_lazy("password-changed"),
        extra_context={"title": "Change your password",
                       "intro": "A new password also revokes your API tokens: run armada login again where you "
                                "use the command line."}),
         name="password-change"),
    path("password/done/", auth.PasswordChangeDoneView.as_view(
        template_name=T + "message.html", extra_context={
            "title": "Password changed",
            "message": "Your password is changed and your API tokens are revoked (armada login makes a new one)."}),
         name="password-changed"),
    path("password/reset/", views.PasswordReset.as_view(
        template_name=T + "form.html", email_template_name=T + "reset_email.txt",
        subject_template_name=T + "reset_subject.txt", success_url=reverse_lazy("password-reset-sent"),
        extra_context={"title": "Reset your password",
                       "intro": "Give the confirmed e-mail address of your account; we send a link to choose a "
                                "new password."}),
         name="password-reset"),
    path("password/reset/sent/", auth.PasswordResetDoneView.as_view(
        template_name=T + "message.html", extra_context={
            "title": "Check your e-mail",
            "message": "If an account has that address, a link to reset its password is on its way."}),
         name="password-reset-sent"),
    path("password/reset/<uidb64>/<token>/", auth.PasswordResetConfirmView.as_view(
        template_name=T + "form.html", success_url=reverse_lazy("password-reset-done"),
        extra_context={"title": "Choose a new password"}), name="password-reset-confirm"),
    path("password/reset/done/", auth.PasswordResetCompleteView.as_view(
        template_name=T + "message.html", extra_context={"title": "Password reset",
                                                          "message": "Your password is set. Log in with it."}),
         name="password-reset-done"),
]
