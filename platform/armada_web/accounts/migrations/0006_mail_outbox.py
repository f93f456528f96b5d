"""E-mails as an outbox (accounts.mail): each SentMail row is written pending in the transaction of
its event, with its subject and body, taken (`sending`, `claimed`) before it is sent and marked
sent once the mail server took it; beat sends the ones whose first send failed. The rows already there were sent: they keep `sent` and get the
status `sent`."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('accounts', '0005_email_changes'),
    ]

    operations = [
        migrations.AddField(
            model_name='sentmail',
            name='address',
            field=models.EmailField(blank=True, help_text="where it goes (empty: the user's confirmed address)", max_length=254),
        ),
        migrations.AddField(
            model_name='sentmail',
            name='subject',
            field=models.CharField(blank=True, max_length=200),
        ),
        migrations.AddField(
            model_name='sentmail',
            name='body',
            field=models.TextField(blank=True),
        ),
        migrations.AddField(
            model_name='sentmail',
            name='status',
            field=models.CharField(choices=[('pending', 'to be sent'), ('sending', 'being sent'), ('sent', 'sent'), ('skipped', 'not sent: the account was closed or lost its address meanwhile'), ('failed', 'not sent: the mail server refused it for a day')], default='sent', max_length=10),
        ),
        migrations.AddField(
            model_name='sentmail',
            name='attempts',
            field=models.PositiveSmallIntegerField(default=0, help_text='sends the mail server refused'),
        ),
        migrations.AddField(
            model_name='sentmail',
            name='made',
            field=models.DateTimeField(blank=True, help_text='when its event happened', null=True),
        ),
        migrations.AddField(
            model_name='sentmail',
            name='claimed',
            field=models.DateTimeField(blank=True, help_text='when its last send began', null=True),
        ),
        migrations.AlterField(
            model_name='sentmail',
            name='sent',
            field=models.DateTimeField(blank=True, help_text='when it was sent (or given up)', null=True),
        ),
        migrations.AddIndex(
            model_name='sentmail',
            index=models.Index(condition=models.Q(('status', 'pending')), fields=['made'], name='pending_mail'),
        ),
    ]
